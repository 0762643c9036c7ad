import { isLogLevel, type Logger, type LogLevel, textLogger } from "@toolsmith/core";
import { type Phase, type Servable, toServer } from "@toolsmith/core/transport";
import { FlowControl } from "./flow-control.js";
import { type LineEvent, LineReader } from "./line-reader.js";
import { Shutdown } from "./shutdown.js";
import { redirectStdout, type StdoutRedirect, writeThrough } from "./stdout-redirect.js";
import type { WireEntry } from "./tap.js";

/** How `serveStdio` serves: its streams, bounds and shutdown. */
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
  redirectStdout?: boolean;
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
 * ```ts source="examples/stdio.ts#serveStdio"
 * const server = createServer({ name: "demo", version: "1.0.0" });
 * server.tool(echo);
 * await serveStdio(server).closed;
 * ```
 */
export function serveStdio(servable: Servable, options: StdioOptions = {}): StdioConnection {
  const server = toServer(servable);
  const stdin = options.stdin ?? process.stdin;
  const stdout = options.stdout ?? process.stdout;
  const stderr = options.stderr ?? process.stderr;
  const usesProcess = stdout === process.stdout;
  const exitOnEnd = options.exitOnEnd ?? stdin === process.stdin;
  const logger = stderrLogger(stderr);
  // Through the server's own log (its logger and its onError hook); stderr when neither is set any more.
  const log = (error: unknown, where: { method: string }) => {
    const entry = { level: "error" as const, message: `${where.method} failed: ${String(error)}`, error, ...where };
    if (!server.log(entry)) logger(entry);
  };

  const redirect: StdoutRedirect | undefined =
    (options.redirectStdout ?? usesProcess) ? redirectStdout(stdout as NodeJS.WriteStream, stderr) : undefined;
  const write = redirect?.write ?? writeThrough(stdout);
  if (!server.logger && !server.errorHook) server.setLogger(logger);

  // A tap sees each reply with the phase its request came in with: the phase rides along as the message's tag.
  // The peer is the local user who started this process: it holds every scope (docs/decisions/0008-scopes.md).
  const connection = server.connect({
    send: (line, delivery) => flow.out.send(line, (delivery.tag as Phase | undefined) ?? connection.phase),
    holdsEveryScope: true,
  });
  const reader = new LineReader(options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES);
  const flow = new FlowControl({
    connection,
    stdin,
    write,
    maxInFlight: options.maxInFlight ?? 256,
    maxQueuedBytes: options.maxQueuedBytes ?? DEFAULT_MAX_QUEUED_BYTES,
    maxLineBytes: reader.maxLineBytes,
    tap: options.tap,
    log,
    settled: () => shutdown.finish(),
  });
  const shutdown = new Shutdown({
    flow,
    connection,
    timeoutMs: options.shutdownTimeoutMs ?? 10_000,
    write,
    detach,
    restore: () => redirect?.restore(),
  });
  const incoming: LineEvent[] = [];

  function onData(chunk: Buffer | string): void {
    reader.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk, incoming);
    // The replies to the lines of one chunk go out together (`flow` writes them).
    flow.out.hold();
    for (const event of incoming) flow.accept(event);
    incoming.length = 0;
    flow.flow();
  }

  // The end of input: EOF, a stdin error, or a signal (`lastLine` false: what was not read yet is dropped).
  function endInput(lastLine: boolean): void {
    if (flow.inputEnded) return;
    if (lastLine) {
      reader.end(incoming);
      for (const event of incoming) flow.accept(event);
      incoming.length = 0;
    }
    if (exitOnEnd) shutdown.closed.then(() => process.exit(0));
    shutdown.endInput();
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
    flow.drained();
  }

  function onStdoutError(): void {
    // The reader is gone (EPIPE): nothing more can be said.
    shutdown.lost();
    if (exitOnEnd) process.exit(0);
  }

  function detach(): void {
    stdin.off("data", onData);
    stdin.off("end", onEnd);
    stdin.off("error", onEnd);
    stdout.off("drain", onDrain);
    if (exitOnEnd) {
      process.off("SIGTERM", onSignal);
      process.off("SIGINT", onSignal);
    }
  }

  stdin.on("data", onData);
  stdin.on("end", onEnd);
  stdin.on("error", onEnd);
  stdout.on("drain", onDrain);
  stdout.on("error", onStdoutError);
  if (exitOnEnd) {
    process.on("SIGTERM", onSignal);
    process.on("SIGINT", onSignal);
  }

  return { closed: shutdown.closed, close: () => shutdown.close() };
}
