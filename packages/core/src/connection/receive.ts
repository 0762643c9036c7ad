import { check, Envelope, issuesText } from "../protocol/inbound.js";
import { BATCH_REVISIONS } from "../protocol/revision.js";
import { ErrorCode, isPlainObject } from "../wire/json-rpc.js";
import { isPromiseLike, type MaybePromise } from "../wire/maybe.js";
import { idText, messageIdText, rawBatchIds } from "../wire/raw-id.js";
import type { ReceiveOptions } from "./connect-options.js";
import type { EraRouter } from "./era-routing.js";
import type { ErrorBoundary } from "./error-boundary.js";
import type { Params } from "./in-flight.js";
import type { OutboundRequests } from "./outbound-requests.js";
import type { Outlet, Respond } from "./outlet.js";

/**
 * What the connection does with a client's notification: a promise while a session change it caused is told (a
 * rejection: that change failed, logged already; there is no reply to carry it).
 */
export type OnNotification = (method: string, params: Params, line: string | undefined) => MaybePromise<void>;

// A response: the answer to one of the server's own requests, or to nothing (JSON-RPC never answers it).
function isResponse(message: unknown): message is Record<string, unknown> {
  return isPlainObject(message) && !("method" in message) && ("result" in message || "error" in message);
}

/**
 * A line in: parsed, checked as a JSON-RPC message, a 2025-03-26 batch taken apart. Requests go to the error
 * boundary, notifications to the connection, the client's answers to the server's own requests they settle.
 */
export class Receiver {
  readonly #out: Outlet;
  readonly #outbound: OutboundRequests;
  readonly #eras: EraRouter;
  readonly #boundary: ErrorBoundary;
  readonly #notified: OnNotification;

  constructor(
    out: Outlet,
    outbound: OutboundRequests,
    eras: EraRouter,
    boundary: ErrorBoundary,
    notified: OnNotification,
  ) {
    this.#out = out;
    this.#outbound = outbound;
    this.#eras = eras;
    this.#boundary = boundary;
    this.#notified = notified;
  }

  /** `Connection.receive`: synchronous when every handler the line reaches is, else settles once replied. */
  receive(line: string, options: ReceiveOptions | undefined): MaybePromise<void> {
    let message: unknown = options?.parsed;
    try {
      if (message === undefined) message = JSON.parse(line);
    } catch {
      this.#refuse(ErrorCode.ParseError, "Parse error: the message is not valid JSON", options);
      return;
    }
    if (Array.isArray(message)) return this.#batch(message, line, options);
    return this.#single(message, line, options, this.#out.respond);
  }

  // The one reply to a line that holds no request to answer: id null.
  #refuse(code: number, message: string, options: ReceiveOptions | undefined): void {
    this.#out.respond(this.#out.errorLine("null", { code, message }), null, options?.tag, code);
  }

  // ── Batches (2025-03-26): one entry at a time, one reply line for all of them ──

  #batch(messages: unknown[], line: string, options: ReceiveOptions | undefined): MaybePromise<void> {
    if (messages.length === 0) {
      this.#refuse(ErrorCode.InvalidRequest, "Invalid request: an empty batch", options);
      return;
    }
    if (!this.#eras.batches) {
      this.#refuse(
        ErrorCode.InvalidRequest,
        `Invalid request: JSON-RPC batches are accepted only in a ${BATCH_REVISIONS} session, after initialize`,
        options,
      );
      return;
    }
    // The client's answers in it are taken first: a request before them in the batch may be waiting for one.
    for (const entry of messages) if (isResponse(entry)) this.#outbound.settle(entry);
    const replies: string[] = [];
    const collect: Respond = (reply) => replies.push(reply);
    // An entry's id past 2^53 is read off the batch's text, once for all of them.
    let raws: (string | undefined)[] | undefined;
    const from = (start: number): MaybePromise<void> => {
      for (let index = start; index < messages.length; index++) {
        const entry = messages[index];
        const id = isPlainObject(entry) ? entry.id : undefined;
        let raw: string | undefined;
        if (typeof id === "number" && !Number.isSafeInteger(id)) {
          raws ??= rawBatchIds(line);
          raw = raws[index];
        }
        const done = this.#single(entry, undefined, options, collect, raw);
        // Only a notification's session change rejects (logged where it failed): the batch's replies go on.
        const next = () => from(index + 1);
        if (isPromiseLike<void>(done)) return Promise.resolve(done).then(next, next);
      }
      if (replies.length > 0) this.#out.respond(`[${replies.join(",")}]`, null, options?.tag);
    };
    return from(0);
  }

  // ── One message ──

  #single(
    message: unknown,
    line: string | undefined,
    options: ReceiveOptions | undefined,
    respond: Respond,
    rawId?: string,
  ): MaybePromise<void> {
    const parsed = check(Envelope, message);
    if (!parsed.success) {
      if (isResponse(message)) {
        this.#outbound.settle(message);
        return;
      }
      const text = rawId ?? messageIdText(message, line);
      respond(
        this.#out.errorLine(text, {
          code: ErrorCode.InvalidRequest,
          message: `Invalid request: ${issuesText(parsed.error.issues)}`,
        }),
        null,
        options?.tag,
        ErrorCode.InvalidRequest,
      );
      return;
    }
    const { id, method, params } = parsed.data;
    if (id === undefined) return this.#notified(method, params, line);
    return this.#boundary.serve(id, rawId ?? idText(id, line), method, params, options, respond);
  }
}
