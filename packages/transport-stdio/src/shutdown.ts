import type { Connection } from "@toolsmith/core/transport";
import type { FlowControl } from "./flow-control.js";
import type { StdoutRedirect } from "./stdout-redirect.js";

// After requests are aborted, how long a handler that ignores its abort still has before it is answered for.
const ABANDON_MS = 1000;

/** What ending touches. */
export interface ShutdownOptions {
  flow: FlowControl;
  connection: Connection;
  /** How long requests may run after the input ends, and the last replies may take to flush. */
  timeoutMs: number;
  write: StdoutRedirect["write"];
  /** Stop listening to stdin, stdout and the process's signals. */
  detach: () => void;
  /** Give stdout back as it was before serving. */
  restore: () => void;
}

/**
 * How serving ends (the input ends, `close()`, stdout is gone) so that every request read gets its one reply and
 * the process always exits.
 */
export class Shutdown {
  /** Resolves once serving has stopped and the last replies are flushed (or given up on). */
  readonly closed: Promise<void>;
  readonly #flow: FlowControl;
  readonly #connection: Connection;
  readonly #timeoutMs: number;
  readonly #write: StdoutRedirect["write"];
  readonly #detach: () => void;
  readonly #restore: () => void;
  readonly #timers: ReturnType<typeof setTimeout>[] = [];
  #resolveClosed!: () => void;

  constructor(options: ShutdownOptions) {
    this.#flow = options.flow;
    this.#connection = options.connection;
    this.#timeoutMs = options.timeoutMs;
    this.#write = options.write;
    this.#detach = options.detach;
    this.#restore = options.restore;
    this.closed = new Promise<void>((resolve) => {
      this.#resolveClosed = resolve;
    });
  }

  /**
   * The input ended (EOF, a stdin error, a signal): what was read is served, and serving finishes once every
   * request has its reply; those still running at the timeout are aborted, and one that ignores it is given up a
   * second later.
   */
  endInput(): void {
    const flow = this.#flow;
    flow.endInput();
    // Every answer the client sent has been read: the server's questions still open fail now.
    this.#connection.endOfInput();
    this.#later(this.#timeoutMs, () => {
      this.#connection.close(new Error("stdin ended"));
      flow.refuseWaiting(
        `Server shutting down: this request was still waiting for its turn ${this.#timeoutMs} ms after the client's input ended`,
      );
      this.#later(ABANDON_MS, () => this.#finish(true));
      flow.flow();
    });
    flow.flow();
  }

  /** Stop reading, abort requests in flight, answer those waiting; resolves with `closed`. */
  async close(): Promise<void> {
    // Requests not yet started are refused; those running are aborted and their replies still written.
    if (this.#flow.stop("Server shutting down: the server was closed before this request's turn came")) {
      this.#connection.endSubscriptions();
      this.#connection.close(new Error("server closed"));
      this.#later(ABANDON_MS, () => this.#finish(true));
      this.#flow.flow();
    }
    await this.closed;
  }

  /** Every request read has its reply: finish once it is flushed. */
  finish(): void {
    this.#finish(false);
  }

  /** stdout is gone (EPIPE): nothing more can be said. */
  lost(): void {
    this.#stop();
    this.#connection.close(new Error("stdout closed"));
    this.#restore();
    this.#resolveClosed();
  }

  // Stop serving once everything written so far has been flushed (or the client was given up on). When forced,
  // each request whose handler ignored its abort is answered for first: every request gets its one reply.
  #finish(forced: boolean): void {
    if (this.#flow.finished) return;
    if (forced) {
      this.#flow.answerUnanswered(
        "Server shutting down: the request did not finish once aborted (its handler ignored ctx.signal)",
      );
    }
    this.#stop();
    // Nothing is in flight any more (or it was given up on): the connection stops hearing of list changes.
    this.#connection.close(new Error("stdio closed"));
    let flushing: ReturnType<typeof setTimeout> | undefined;
    const done = () => {
      clearTimeout(flushing);
      this.#restore();
      this.#resolveClosed();
    };
    // An empty write's callback runs once everything before it has been flushed; a client that never reads is
    // given up on after the shutdown timeout, so the process always exits.
    this.#write("", done);
    flushing = setTimeout(done, this.#timeoutMs);
    flushing.unref();
  }

  #stop(): void {
    this.#flow.finish();
    for (const timer of this.#timers) clearTimeout(timer);
    this.#detach();
  }

  #later(ms: number, run: () => void): void {
    // Not unref'd: a handler waiting only for its abort still gets it, and its reply, before the process exits.
    this.#timers.push(setTimeout(run, ms));
  }
}
