import type { Route } from "@toolsmith/core";
import { EventStream, SSE_HEADERS } from "./event-stream.js";
import { JSON_HEADERS, type Outgoing } from "./exchange.js";

/** Where a reply's SSE events are also kept, so a client that lost the stream can resume it (handshake era). */
export interface EventLog {
  /** Whether a stream opens with an event of empty data and an id (2025-11-25), so it can be resumed at once. */
  readonly priming: boolean;
  /** A new stream key, for a reply that becomes a stream. */
  nextKey(): string;
  /** Keep one event of stream `key`; its id. */
  record(key: string, data: string): string;
  /** The stream a resumed GET now reads `key` from, if any. */
  live(key: string): EventStream | undefined;
  /** Stream `key` is open: a GET may resume it until its reply is complete. */
  opened(key: string): void;
  /** The reply of stream `key` is complete. */
  finished(key: string): void;
}

export interface ReplyOptions {
  /** The HTTP status of a lone JSON-RPC response, by its error code (undefined for a result). */
  status(error: number | undefined): number;
  /** Extra response headers (the session id). */
  headers?: Readonly<Record<string, string>>;
  /** The headers of a JSON answer: JSON_HEADERS with `headers`, merged once where many replies share them. */
  jsonHeaders?: Readonly<Record<string, string>>;
  /** Handshake era: the session's event log, for resumption. */
  log?: EventLog;
  /** The client closed the SSE stream before the reply was complete. */
  onCancel?: () => void;
}

/**
 * The HTTP answer to one POSTed request: plain JSON when its response is the first thing the connection says for
 * it, an SSE stream as soon as anything else comes first (progress, a log message, a question to the client).
 */
export class Reply {
  /** The answer, once known; `answered` resolves with it when it is not known at once. */
  outgoing: Outgoing | undefined;
  readonly #options: ReplyOptions;
  #resolve: ((outgoing: Outgoing) => void) | undefined;
  #stream: EventStream | undefined;
  // The stream's key in the event log, once the reply is a stream.
  #key = "";
  #done = false;

  constructor(options: ReplyOptions) {
    this.#options = options;
  }

  get done(): boolean {
    return this.#done;
  }

  /** The answer: at once when the connection already gave it, else when it does. */
  answered(): Outgoing | Promise<Outgoing> {
    if (this.outgoing) return this.outgoing;
    return new Promise((resolve) => {
      this.#resolve = resolve;
    });
  }

  #settle(outgoing: Outgoing): void {
    this.outgoing = outgoing;
    this.#resolve?.(outgoing);
  }

  /** Take a line the connection said for this request; false once the reply is complete (send it elsewhere). */
  deliver(line: string, route: Route): boolean {
    if (this.#done) return false;
    if (route.kind === "response" && this.#stream === undefined) {
      this.#done = true;
      const options = this.#options;
      const extra = options.headers;
      this.#settle({
        status: options.status(route.error),
        headers: options.jsonHeaders ?? (extra ? { ...JSON_HEADERS, ...extra } : JSON_HEADERS),
        body: line,
      });
      return true;
    }
    const stream = this.#stream ?? this.#open();
    const log = this.#options.log;
    if (log) {
      const id = log.record(this.#key, line);
      stream.write(line, id);
      log.live(this.#key)?.write(line, id);
    } else {
      stream.write(line);
    }
    if (route.kind === "response") {
      this.#done = true;
      stream.close();
      log?.finished(this.#key);
    }
    return true;
  }

  /** The request was accepted and needs no answer (a notification, a response, a cancelled request). */
  accept(status = 202): void {
    if (this.#done) return;
    this.#done = true;
    if (this.#stream) {
      this.#stream.close();
      this.#options.log?.finished(this.#key);
      return;
    }
    this.#settle({ status, headers: this.#options.headers ?? {} });
  }

  #open(): EventStream {
    const stream = new EventStream(() => {
      if (!this.#done) this.#options.onCancel?.();
    });
    this.#stream = stream;
    const log = this.#options.log;
    if (log) {
      this.#key = log.nextKey();
      log.opened(this.#key);
      // 2025-11-25: an event with an id first, so a client can resume even before the first message.
      if (log.priming) stream.prime(log.record(this.#key, ""));
    }
    this.#settle({ status: 200, headers: { ...SSE_HEADERS, ...this.#options.headers }, stream });
    return stream;
  }
}
