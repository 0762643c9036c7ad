import type { MaybePromise } from "@toolsmith/core";
import { andThen, messageIdText } from "@toolsmith/core/internal";
import type { Delivery } from "@toolsmith/core/transport";
import { EventStream, SSE_HEADERS } from "./event-stream.js";
import { JSON_HEADERS, type Outgoing } from "./exchange.js";
import { isRequest, retryAfter } from "./refusals.js";

/**
 * Where a reply's SSE events are kept (the session's engine), so a client that lost the stream can resume it on any
 * process (handshake era). `request`: the id's JSON text of the POST's lone request, for its lease.
 */
export interface PostStreamLog {
  /** Whether a stream opens with an event of empty data and an id (2025-11-25), so it can be resumed at once. */
  readonly priming: boolean;
  /** A new stream key, for a reply that becomes a stream. */
  nextKey(): string;
  /** Stream `key` is open: a GET may resume it until its reply is complete. */
  opened(key: string, request: string | undefined): void;
  /**
   * Keep one event of stream `key` (empty data: the priming event) and write it to `stream` with its id, in order;
   * `last`: the reply is complete after it (the stream closes). Settles (never rejects) once it is on `stream`.
   */
  write(key: string, data: string, stream: EventStream, last: boolean, request: string | undefined): MaybePromise<void>;
  /** The reply of stream `key` is complete without a last event (a notification's, a response's POST). */
  finished(key: string, request: string | undefined, stream: EventStream): void;
}

export interface PostReplyOptions {
  /**
   * The HTTP status of a lone JSON-RPC response, by its error code (undefined for a result) and the wait core gave a
   * request the engine could not serve (`statelessStatus`, `handshakeStatus`).
   */
  status(error: number | undefined, wait?: number): number;
  /** Extra response headers (the session id). */
  headers?: Readonly<Record<string, string>>;
  /** The headers of a JSON answer: JSON_HEADERS with `headers`, merged once where many replies share them. */
  jsonHeaders?: Readonly<Record<string, string>>;
  /** Handshake era: the session's event log, for resumption. */
  log?: PostStreamLog;
  /** The client closed the SSE stream before the reply was complete. */
  onCancel?: () => void;
}

/**
 * The HTTP answer to one POSTed request: plain JSON when its response is the first thing the connection says for
 * it, an SSE stream as soon as anything else comes first (progress, a log message, a question to the client). A
 * refusal for want of scopes comes before anything of the operation runs, so it is the first thing said: JSON with its
 * status (403), whether or not the client accepts SSE.
 */
export class PostReply {
  /** The answer, once known; `answered` resolves with it when it is not known at once. */
  outgoing: Outgoing | undefined;
  readonly #options: PostReplyOptions;
  #resolve: ((outgoing: Outgoing) => void) | undefined;
  #stream: EventStream | undefined;
  // The stream's key in the event log, once the reply is a stream.
  #key = "";
  // Whether a logged stream's first event was written: the answer (the stream's headers) waits for it (`#begin`).
  #begun = false;
  #done = false;
  // The POST's lone request (its message and body), for the lease of its stream: its id is read only if it streams.
  readonly #message: unknown;
  readonly #body: string;

  constructor(options: PostReplyOptions, message?: unknown, body = "") {
    this.#options = options;
    this.#message = message;
    this.#body = body;
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
  deliver(line: string, delivery: Delivery): boolean {
    if (this.#done) return false;
    if (delivery.kind === "response" && this.#stream === undefined) {
      this.#done = true;
      const options = this.#options;
      const extra = options.headers;
      const headers = options.jsonHeaders ?? (extra ? { ...JSON_HEADERS, ...extra } : JSON_HEADERS);
      const wait = delivery.retryAfterSeconds;
      const status = options.status(delivery.error, wait);
      const { scopes } = delivery;
      // Core could not reach the engine for it: the client is told when to try again. A refusal for want of scopes
      // is challenged (403, RFC 6750 §3.1): the dispatcher writes the challenge naming them.
      this.#settle(
        wait !== undefined
          ? { status, headers: { ...headers, "retry-after": String(retryAfter(wait)) }, body: line }
          : scopes !== undefined && status === 403
            ? { status, headers, body: line, scopes }
            : { status, headers, body: line },
      );
      return true;
    }
    const stream = this.#stream ?? this.#open();
    const last = delivery.kind === "response";
    if (last) this.#done = true;
    const log = this.#options.log;
    if (log) {
      this.#begin(log.write(this.#key, line, stream, last, this.#request()), stream);
      return true;
    }
    stream.write(line);
    if (last) stream.close();
    return true;
  }

  /** The request was accepted and needs no answer (a notification, a response, a cancelled request). */
  accept(status = 202): void {
    if (this.#done) return;
    this.#done = true;
    if (this.#stream) {
      const log = this.#options.log;
      if (log) log.finished(this.#key, this.#request(), this.#stream);
      else this.#stream.close();
      return;
    }
    this.#settle({ status, headers: this.#options.headers ?? {} });
  }

  // The lone request's id text (a batch's stream has no single lease).
  #request(): string | undefined {
    return isRequest(this.#message) ? messageIdText(this.#message, this.#body) : undefined;
  }

  #open(): EventStream {
    const stream = new EventStream(() => {
      if (!this.#done) this.#options.onCancel?.();
    });
    this.#stream = stream;
    const log = this.#options.log;
    if (!log) {
      this.#settle({ status: 200, headers: this.#streamHeaders(), stream });
      return stream;
    }
    this.#key = log.nextKey();
    log.opened(this.#key, this.#request());
    // 2025-11-25: an event with an id first, so a client can resume even before the first message.
    if (log.priming) this.#begin(log.write(this.#key, "", stream, false, undefined), stream);
    return stream;
  }

  /**
   * A logged stream's answer begins once its first event (`written`: the priming event, or the first message) is
   * kept, after the request's lease: a process that dies before then has said nothing for the request (a proxy
   * answers 502, the client rejects the call at once), and one that dies after has given the client an id to resume
   * with, on a stream that another process answers (-32603) once the lease lapses. Begun sooner, a stream cut before
   * its first id would leave the client nothing to resume and nobody to answer.
   */
  #begin(written: MaybePromise<void>, stream: EventStream): void {
    if (this.#begun) return;
    this.#begun = true;
    andThen(written, () => this.#settle({ status: 200, headers: this.#streamHeaders(), stream }));
  }

  #streamHeaders(): Record<string, string> {
    return { ...SSE_HEADERS, ...this.#options.headers };
  }
}
