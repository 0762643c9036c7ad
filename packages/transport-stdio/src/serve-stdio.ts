import {
  ErrorCode,
  errorLine,
  isLogLevel,
  type Logger,
  type LogLevel,
  levelPasses,
  type Phase,
  type ReceiveOptions,
  type Servable,
  toServer,
} from "@toolsmith/core";
import { isBlankLine } from "./blank-line.js";
import { type LineEvent, LineReader } from "./line-reader.js";
import { guardStdout, type StdoutGuard, writeThrough } from "./stdout-guard.js";

export interface StdioOptions {
  /** Where requests come from (default `process.stdin`). */
  stdin?: NodeJS.ReadableStream;
  /** Where replies go (default `process.stdout`). */
  stdout?: NodeJS.WritableStream;
  /** Where logs go (default `process.stderr`). */
  stderr?: NodeJS.WritableStream;
  /** Longest accepted line in bytes; a longer one gets a -32600 reply and is dropped (default 4 MiB). */
  maxLineBytes?: number;
  /** Requests served at once; reading pauses at this many (default 256). */
  maxInFlight?: number;
  /** Send user code's stdout writes and console output to stderr while serving (default true with process.stdout). */
  guardStdout?: boolean;
  /** Exit the process once stdin ends and every reply is written (default true with process.stdin). */
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
  /** Stop reading, abort requests in flight, and resolve `closed`. */
  close(): Promise<void>;
}

const DEFAULT_MAX_LINE_BYTES = 4 * 1024 * 1024;
const QUEUE_BYTES = 1024 * 1024;
const LINE_SEPARATORS = /[\u2028\u2029]/g;

// JSON.stringify leaves U+2028 and U+2029 raw; escape them so no reader takes them for line breaks.
/** True for a JSON-RPC notification or response: a line that is not a request. */
function isNotificationOrResponse(text: string): boolean {
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    return false;
  }
  if (typeof message !== "object" || message === null || Array.isArray(message)) return false;
  return !("id" in message) || (!("method" in message) && ("result" in message || "error" in message));
}

function frame(line: string): string {
  return `${line.includes("\u2028") || line.includes("\u2029") ? line.replace(LINE_SEPARATORS, (c) => (c === "\u2028" ? "\\u2028" : "\\u2029")) : line}\n`;
}

/** The stderr logger: entries at `threshold` and above (default `warning`, or `TOOLSMITH_LOG`), stacks for bugs. */
export function stderrLogger(stderr: NodeJS.WritableStream, threshold: LogLevel = defaultThreshold()): Logger {
  return (entry) => {
    if (!levelPasses(entry.level, threshold)) return;
    const { error } = entry;
    const stack =
      error instanceof Error && entry.level !== "info" && entry.level !== "debug" && error.stack
        ? `\n${error.stack}`
        : "";
    stderr.write(`[toolsmith] ${entry.message}${stack}\n`);
  };
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
  // Lines read but not yet served; reading pauses once they hold QUEUE_BYTES, so memory stays bounded.
  const queue: (LineEvent | undefined)[] = [];
  let queueAt = 0;
  let queuedBytes = 0;
  let inFlight = 0;
  let blocked = false;
  let paused = false;
  let flowing = false;
  let inputEnded = false;
  let stopping = false;
  let finished = false;
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

  function send(line: string, phase: Phase): void {
    if (finished) return;
    const framed = frame(line);
    tap({ direction: "out", line: framed.slice(0, -1), phase });
    if (!write(framed)) blocked = true;
  }

  function dispatch(event: LineEvent): void {
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
      done = options.tap ? connection.receive(event.text, tagged[connection.phase]) : connection.receive(event.text);
    } catch (error) {
      log(error, { method: "(dispatch)" });
      return;
    }
    if (done === undefined) return;
    // An asynchronous handler: its slot is held until its reply has gone out.
    inFlight++;
    done.then(
      () => {
        inFlight--;
        flow();
      },
      (error: unknown) => {
        inFlight--;
        log(error, { method: "(dispatch)" });
        flow();
      },
    );
  }

  function take(index: number): LineEvent {
    const event = queue[index] as LineEvent;
    queue[index] = undefined;
    queuedBytes -= event.kind === "line" ? event.text.length : 0;
    return event;
  }

  // What may pass the in-flight limit: notifications (a cancellation frees a slot) and the client's answers to the
  // server's own requests (the handlers holding the slots wait for them). Told apart by parsing, once per line.
  const passes = new WeakMap<LineEvent, boolean>();
  function mayPass(event: LineEvent | undefined): boolean {
    if (event?.kind !== "line") return false;
    let known = passes.get(event);
    if (known === undefined) {
      known = isNotificationOrResponse(event.text);
      passes.set(event, known);
    }
    return known;
  }

  // Serve queued lines in order while there is room. At the in-flight limit, notifications and responses further
  // back still go through.
  function flow(): void {
    if (flowing || finished) return;
    flowing = true;
    try {
      while (queueAt < queue.length && !blocked && !stopping && inFlight < maxInFlight) {
        const event = queue[queueAt] === undefined ? undefined : take(queueAt);
        queueAt++;
        if (event) dispatch(event);
      }
      if (!blocked && !stopping && inFlight >= maxInFlight) {
        for (let index = queueAt; index < queue.length; index++) {
          if (mayPass(queue[index])) dispatch(take(index));
        }
      }
    } finally {
      flowing = false;
    }
    while (queueAt < queue.length && queue[queueAt] === undefined) queueAt++;
    if (queueAt === queue.length) {
      queue.length = 0;
      queueAt = 0;
    }
    const shouldPause = blocked || stopping || queuedBytes >= QUEUE_BYTES;
    if (shouldPause && !paused) {
      paused = true;
      stdin.pause();
    } else if (!shouldPause && paused && !inputEnded) {
      paused = false;
      stdin.resume();
    }
    if (inputEnded && queue.length === 0) {
      // Everything sent has been read: listen streams end now, with their closing result, not at the timeout.
      connection.endSubscriptions();
    }
    if ((inputEnded || stopping) && queue.length === 0 && inFlight === 0) finish(false);
  }

  // Stop serving. Normally once everything written so far has been flushed; when forced (handlers that ignored
  // their abort), at once, since a blocked stdout would never flush.
  function finish(forced: boolean): void {
    if (finished) return;
    finished = true;
    // Nothing is in flight any more (or it was given up on): the connection stops hearing of list changes.
    connection.close(new Error("stdio closed"));
    for (const timer of timers) clearTimeout(timer);
    stdin.off("data", onData);
    stdin.off("end", onEnd);
    stdin.off("error", onEnd);
    stdout.off("drain", onDrain);
    const done = () => {
      guard?.restore();
      resolveClosed();
    };
    // An empty write's callback runs once everything before it has been flushed.
    if (forced) done();
    else write("", done);
  }

  function later(ms: number, run: () => void): void {
    const timer = setTimeout(run, ms);
    timer.unref?.();
    timers.push(timer);
  }

  function onData(chunk: Buffer | string): void {
    const before = queue.length;
    reader.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk, queue as LineEvent[]);
    for (let index = before; index < queue.length; index++) {
      const event = queue[index];
      if (event?.kind === "line") queuedBytes += event.text.length;
    }
    flow();
  }

  function onEnd(): void {
    if (inputEnded) return;
    reader.end(queue as LineEvent[]);
    inputEnded = true;
    // Pending replies are written; a request still running at the timeout sees its signal abort, and one that
    // ignores it is given up a second later, so the process always exits.
    later(shutdownTimeoutMs, () => {
      connection.close(new Error("stdin ended"));
      later(1000, () => finish(true));
    });
    if (exitOnEnd) closed.then(() => process.exit(0));
    flow();
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
    finished = true;
    connection.close(new Error("stdout closed"));
    guard?.restore();
    resolveClosed();
    if (exitOnEnd) process.exit(0);
  });

  return {
    closed,
    async close() {
      if (!finished) {
        // Requests not yet started are dropped; those running are aborted and their replies still written.
        stopping = true;
        for (let index = queueAt; index < queue.length; index++) if (queue[index]) take(index);
        connection.endSubscriptions();
        connection.close(new Error("server closed"));
        flow();
      }
      await closed;
    },
  };
}
