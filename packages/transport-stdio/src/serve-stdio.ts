import {
  ErrorCode,
  errorLine,
  isLogLevel,
  type Logger,
  type LogLevel,
  type Phase,
  type ReceiveOptions,
  type Servable,
  textLogger,
  toServer,
} from "@toolsmith/core";
import { isBlankLine } from "./blank-line.js";
import { busyReply, cancelledId, MixedBatch, NOT_URGENT, urgentMessage } from "./line-kinds.js";
import { type LineEvent, LineReader } from "./line-reader.js";
import { guardStdout, type StdoutGuard, writeThrough } from "./stdout-guard.js";
import { WaitingLines } from "./waiting-lines.js";

export interface StdioOptions {
  /** Where requests come from (default `process.stdin`). */
  stdin?: NodeJS.ReadableStream;
  /** Where replies go (default `process.stdout`). */
  stdout?: NodeJS.WritableStream;
  /** Where logs go (default `process.stderr`). */
  stderr?: NodeJS.WritableStream;
  /** Longest accepted line in bytes; a longer one gets a -32600 reply and is dropped (default 4 MiB). */
  maxLineBytes?: number;
  /** Requests served at once; more wait their turn in a queue (default 256). */
  maxInFlight?: number;
  /**
   * How much (bytes of request text, plus 64 a line) may wait for a slot; past it a request is answered -32000
   * "busy" at once, so reading never stops for it (default 16 MiB).
   */
  maxQueuedBytes?: number;
  /** Send user code's stdout writes and console output to stderr while serving (default true with process.stdout). */
  guardStdout?: boolean;
  /**
   * Exit the process (code 0) once stdin ends and every reply is written; SIGTERM and SIGINT then end the input as
   * EOF does (default true with process.stdin).
   */
  exitOnEnd?: boolean;
  /** After stdin ends, how long requests may still run before they are aborted (default 10 s). */
  shutdownTimeoutMs?: number;
  /**
   * Sees every line that crosses the pipe, in order: a line that came in before it is handled, a reply just
   * before it is written; `phase` is the connection's phase when the line came in.
   */
  tap?: (entry: WireEntry) => void;
}

/** One line on the wire, as a tap sees it. */
export interface WireEntry {
  direction: "in" | "out";
  line: string;
  phase: Phase;
}

/** A server being served over stdio. */
export interface StdioConnection {
  /** Resolves once stdin has ended and every pending reply has been written. */
  readonly closed: Promise<void>;
  /**
   * Stop reading, abort requests in flight, and resolve `closed` once they are answered. Requests not started are
   * answered -32000; one whose handler ignores its abort is answered -32000 a second later.
   */
  close(): Promise<void>;
}

const DEFAULT_MAX_LINE_BYTES = 4 * 1024 * 1024;
const DEFAULT_MAX_QUEUED_BYTES = 16 * 1024 * 1024;
// While stdout is blocked, reading goes on (the client's answers may be behind) until this much waits, then pauses.
const PAUSE_BYTES = 1024 * 1024;
const LINE_SEPARATORS = /[\u2028\u2029]/g;
// After requests are aborted, how long a handler that ignores its abort still has before it is answered for.
const ABANDON_MS = 1000;

// JSON.stringify leaves U+2028 and U+2029 raw; escape them so no reader takes them for line breaks.
function frame(line: string): string {
  return `${line.includes("\u2028") || line.includes("\u2029") ? line.replace(LINE_SEPARATORS, (c) => (c === "\u2028" ? "\\u2028" : "\\u2029")) : line}\n`;
}

/** The stderr logger: entries at `threshold` and above (default `warning`, or `TOOLSMITH_LOG`), stacks for bugs. */
export function stderrLogger(stderr: NodeJS.WritableStream, threshold: LogLevel = defaultThreshold()): Logger {
  return textLogger((line) => stderr.write(line), threshold);
}

function defaultThreshold(): LogLevel {
  const asked = process.env.TOOLSMITH_LOG;
  return isLogLevel(asked) ? asked : "warning";
}

/**
 * Serve `server` over stdio: newline-delimited JSON-RPC on stdin/stdout, logs on stderr.
 * @example
 * await serveStdio(createServer({ name: "demo", version: "1.0.0" }).tool(echo)).closed;
 */
export function serveStdio(servable: Servable, options: StdioOptions = {}): StdioConnection {
  const server = toServer(servable);
  const stdin = options.stdin ?? process.stdin;
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;
  const usesProcess = stdout === process.stdout;
  const maxInFlight = options.maxInFlight ?? 256;
  const maxQueuedBytes = options.maxQueuedBytes ?? DEFAULT_MAX_QUEUED_BYTES;
  const shutdownTimeoutMs = options.shutdownTimeoutMs ?? 10_000;
  const exitOnEnd = options.exitOnEnd ?? stdin === process.stdin;
  const logger = stderrLogger(stderr);
  const log = (error: unknown, where: { method: string }) =>
    logger({ level: "error", message: `${where.method} failed: ${String(error)}`, error });

  const guard: StdoutGuard | undefined =
    (options.guardStdout ?? usesProcess) ? guardStdout(stdout as NodeJS.WriteStream, stderr) : undefined;
  const write = guard?.write ?? writeThrough(stdout);
  if (!server.logger && !server.errorHook) server.setLogger(logger);

  // A tap sees each reply with the phase its request came in with: the phase rides along as the message's tag.
  const connection = server.connect({
    send: (line, route) => send(line, (route.tag as Phase | undefined) ?? connection.phase),
  });
  const tagged: Record<Phase, ReceiveOptions> = { handshake: { tag: "handshake" }, operation: { tag: "operation" } };
  const reader = new LineReader(options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES);
  // Requests (and notifications other than cancellations) read but not served yet, in order.
  const waiting = new WaitingLines((event) => tapIn(event));
  const incoming: LineEvent[] = [];
  let inFlight = 0;
  let blocked = false;
  let paused = false;
  let flowing = false;
  let inputEnded = false;
  let stopping = false;
  // Why requests not started yet are refused rather than served (shutting down), once they are.
  let refusing: string | undefined;
  // Lines whose handlers have not answered yet: at a forced finish each request in them is answered for.
  const unanswered = new Set<LineEvent>();
  let finished = false;
  let keepAlive: ReturnType<typeof setInterval> | undefined;
  const timers: ReturnType<typeof setTimeout>[] = [];
  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });

  function tap(entry: WireEntry): void {
    if (!options.tap) return;
    try {
      options.tap(entry);
    } catch (error) {
      log(error, { method: "(tap)" });
    }
  }

  function tapIn(event: LineEvent): void {
    if (event.kind === "line") tap({ direction: "in", line: event.text, phase: connection.phase });
  }

  function send(line: string, phase: Phase): void {
    if (finished) return;
    const framed = frame(line);
    tap({ direction: "out", line: framed.slice(0, -1), phase });
    if (!write(framed)) blocked = true;
  }

  // `parsed`: the line's message, when it was parsed already to tell what it is.
  function dispatch(event: LineEvent, parsed?: unknown): void {
    if (event.kind === "oversized") {
      if (event.notification) return;
      const message = `Message too large: ${event.bytes} bytes, over the limit of ${reader.maxLineBytes} bytes`;
      send(errorLine(event.idText, { code: ErrorCode.InvalidRequest, message }), connection.phase);
      return;
    }
    if (isBlankLine(event.text)) return;
    tap({ direction: "in", line: event.text, phase: connection.phase });
    let done: void | Promise<void>;
    try {
      // Replies and everything else the connection says go out through `send` as they happen.
      done =
        parsed !== undefined
          ? connection.receive(event.text, { ...tagged[connection.phase], parsed })
          : options.tap
            ? connection.receive(event.text, tagged[connection.phase])
            : connection.receive(event.text);
    } catch (error) {
      log(error, { method: "(dispatch)" });
      return;
    }
    if (done === undefined) return;
    // An asynchronous handler: its slot is held until its reply has gone out.
    inFlight++;
    unanswered.add(event);
    done.then(
      () => {
        inFlight--;
        unanswered.delete(event);
        flow();
      },
      (error: unknown) => {
        inFlight--;
        unanswered.delete(event);
        log(error, { method: "(dispatch)" });
        flow();
      },
    );
  }

  // A line just read. Served at once when nothing waits and there is room; otherwise the client's answers and
  // cancellations still go through at once (the requests holding the slots may await them), and the rest waits
  // its turn, up to maxQueuedBytes: past that a request is answered "busy" rather than reading stop.
  function accept(event: LineEvent): void {
    if (stopping) return;
    if ((waiting.empty && !blocked && inFlight < maxInFlight) || event.kind === "oversized") {
      dispatch(event);
      return;
    }
    const urgent = urgentMessage(event.text);
    let parsed: unknown;
    if (urgent instanceof MixedBatch) {
      // A batch of requests and answers: its answers are taken now; the batch waits its turn, where they are
      // answers to nothing (dropped), as the server never reuses its own request ids.
      for (const answer of urgent.answers) connection.receive(event.text, { parsed: answer });
      parsed = urgent.message;
    } else if (urgent !== NOT_URGENT) {
      const cancelled = cancelledId(urgent);
      const running = connection.pending;
      dispatch(event, urgent);
      // It cancelled nothing running: the request it names may still be waiting, and is dropped at its turn
      // (past maxQueuedBytes it is not looked for: that request, if it waits, is answered, as a late cancel is).
      if (cancelled !== undefined && connection.pending === running && waiting.bytes < maxQueuedBytes) {
        waiting.cancel(cancelled);
      }
      return;
    }
    if (waiting.bytes >= maxQueuedBytes) {
      refuse(event, `Server busy: ${waiting.bytes} bytes of requests are already waiting; try again later`, parsed);
    } else waiting.push(event);
  }

  // Answer each request `event` holds with -32000 `why`, unserved; anything else in it (a notification, an
  // answer, a line that is not JSON) is handled as usual, since it takes no slot.
  function refuse(event: LineEvent, why: string, parsed?: unknown): void {
    if (event.kind !== "line") return;
    let message = parsed;
    try {
      message ??= JSON.parse(event.text);
    } catch {
      dispatch(event);
      return;
    }
    const busy = busyReply(message, event.text, why);
    // Not a request (a notification, a malformed line): served now, it takes no slot.
    if (busy === undefined) {
      dispatch(event, message);
      return;
    }
    tapIn(event);
    send(busy, connection.phase);
  }

  // Serve queued lines in order while there is room, then pause or resume reading.
  function flow(): void {
    if (flowing || finished) return;
    flowing = true;
    try {
      // Shutting down: what has not started gets its refusal now rather than run after the abort.
      for (let next = refusing === undefined ? undefined : waiting.shift(); next; next = waiting.shift()) {
        refuse(next.event, refusing as string, next.parsed);
      }
      while (!blocked && !stopping && inFlight < maxInFlight) {
        const next = waiting.shift();
        if (next === undefined) break;
        dispatch(next.event, next.parsed);
      }
    } finally {
      flowing = false;
    }
    // Reading stops only while the client is not reading our replies (and enough is queued), or when closing.
    const shouldPause = stopping || (blocked && waiting.bytes >= PAUSE_BYTES);
    if (shouldPause && !paused) {
      paused = true;
      stdin.pause();
    } else if (!shouldPause && paused && !inputEnded) {
      paused = false;
      stdin.resume();
    }
    holdAlive(paused && !stopping && !inputEnded);
    if (inputEnded && waiting.empty) {
      // Everything sent has been read: listen streams end now, with their closing result, not at the timeout.
      connection.endSubscriptions();
    }
    if ((inputEnded || stopping) && waiting.empty && inFlight === 0) finish(false);
  }

  // A paused stdin keeps no process alive; while input is still open, this timer does.
  function holdAlive(hold: boolean): void {
    if (hold && keepAlive === undefined) {
      keepAlive = setInterval(() => {}, 1 << 30);
    } else if (!hold && keepAlive !== undefined) {
      clearInterval(keepAlive);
      keepAlive = undefined;
    }
  }

  function detach(): void {
    finished = true;
    holdAlive(false);
    for (const timer of timers) clearTimeout(timer);
    stdin.off("data", onData);
    stdin.off("end", onEnd);
    stdin.off("error", onEnd);
    stdout.off("drain", onDrain);
    if (exitOnEnd) {
      process.off("SIGTERM", onSignal);
      process.off("SIGINT", onSignal);
    }
  }

  // Stop serving once everything written so far has been flushed (or the client was given up on). When forced,
  // each request whose handler ignored its abort is answered for first: every request gets its one reply.
  function finish(forced: boolean): void {
    if (finished) return;
    if (forced) {
      const why = "Server shutting down: the request did not finish once aborted (its handler ignored ctx.signal)";
      // Each such line held a request (it made a promise), parsed before: its refusal answers it.
      for (const event of unanswered) {
        const refusal = event.kind === "line" ? busyReply(JSON.parse(event.text), event.text, why) : undefined;
        if (refusal !== undefined) send(refusal, connection.phase);
      }
    }
    unanswered.clear();
    detach();
    // Nothing is in flight any more (or it was given up on): the connection stops hearing of list changes.
    connection.close(new Error("stdio closed"));
    let flushing: ReturnType<typeof setTimeout> | undefined;
    const done = () => {
      clearTimeout(flushing);
      guard?.restore();
      resolveClosed();
    };
    // An empty write's callback runs once everything before it has been flushed; a client that never reads is
    // given up on after the shutdown timeout, so the process always exits.
    write("", done);
    flushing = setTimeout(done, shutdownTimeoutMs);
    flushing.unref();
  }

  function onData(chunk: Buffer | string): void {
    reader.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk, incoming);
    for (const event of incoming) accept(event);
    incoming.length = 0;
    flow();
  }

  // The end of input (EOF, a stdin error, or a signal): what was read is served, and the process exits once every
  // request has its reply; those still running at the timeout are aborted, and one that ignores it is given up a
  // second later, so the process always exits.
  function endInput(lastLine: boolean): void {
    if (inputEnded) return;
    if (lastLine) {
      reader.end(incoming);
      for (const event of incoming) accept(event);
      incoming.length = 0;
    }
    inputEnded = true;
    // Every answer the client sent has been read: the server's questions still open fail now.
    connection.endOfInput();
    later(shutdownTimeoutMs, () => {
      connection.close(new Error("stdin ended"));
      refusing ??= `Server shutting down: this request was still waiting for its turn ${shutdownTimeoutMs} ms after the client's input ended`;
      later(ABANDON_MS, () => finish(true));
      flow();
    });
    if (exitOnEnd) closed.then(() => process.exit(0));
    flow();
  }

  function later(ms: number, run: () => void): void {
    // Not unref'd: a handler waiting only for its abort still gets it, and its reply, before the process exits.
    timers.push(setTimeout(run, ms));
  }

  function onEnd(): void {
    endInput(true);
  }

  // SIGTERM and SIGINT end the input as EOF does: what was read is answered, then the process exits.
  function onSignal(): void {
    stdin.off("data", onData);
    stdin.pause();
    endInput(false);
  }

  function onDrain(): void {
    blocked = false;
    flow();
  }

  stdin.on("data", onData);
  stdin.on("end", onEnd);
  stdin.on("error", onEnd);
  stdout.on("drain", onDrain);
  stdout.on("error", () => {
    // The reader is gone (EPIPE): nothing more can be said.
    detach();
    connection.close(new Error("stdout closed"));
    guard?.restore();
    resolveClosed();
    if (exitOnEnd) process.exit(0);
  });
  if (exitOnEnd) {
    process.on("SIGTERM", onSignal);
    process.on("SIGINT", onSignal);
  }

  return {
    closed,
    async close() {
      if (!finished && !stopping) {
        // Requests not yet started are refused; those running are aborted and their replies still written.
        stopping = true;
        refusing = "Server shutting down: the server was closed before this request's turn came";
        connection.endSubscriptions();
        connection.close(new Error("server closed"));
        later(ABANDON_MS, () => finish(true));
        flow();
      }
      await closed;
    },
  };
}
