import { StampedResult } from "../protocol/cache-hints.js";
import { errorLine, INTERNAL_ERROR, type JsonRpcErrorObject, type RequestId } from "../wire/json-rpc.js";
import type { ServerCore } from "./server-core.js";

/** What a line the connection sends is, and which client request it belongs to: what a transport delivers it by. */
export interface Delivery {
  /** `response`: the reply to a client request; `notification`; `request`: the server asking the client. */
  readonly kind: "response" | "notification" | "request";
  /** The client request this message answers or was sent while serving (a listen stream's id for its messages). */
  readonly relatedTo?: RequestId;
  /** The `tag` the transport gave `receive` for the message that brought that request. */
  readonly tag?: unknown;
  /** For an error response: its JSON-RPC error code (HTTP picks a status by it). */
  readonly error?: number;
  /** For an error response to a request the engine could not serve (`EngineUnavailable`): when to try again. */
  readonly retryAfterSeconds?: number;
  /**
   * For an `InsufficientScope` error response: every scope the operation needs (HTTP answers 403 with a
   * `WWW-Authenticate: Bearer error="insufficient_scope"` challenge naming them).
   */
  readonly scopes?: readonly string[];
}

export type Send = (line: string, delivery: Delivery) => void;
export type Respond = (
  line: string,
  id: RequestId | null,
  tag: unknown,
  error?: number,
  retryAfterSeconds?: number,
  scopes?: readonly string[],
) => void;

/** Everything a connection says, serialized and handed to the transport's `send`: replies, notifications, requests. */
export class Outlet {
  readonly #core: ServerCore;
  readonly #send: Send;

  constructor(core: ServerCore, send: Send) {
    this.#core = core;
    this.#send = send;
  }

  // Made once per connection: a batch swaps in its own collector, so replies go through a function.
  readonly respond: Respond = (line, id, tag, error, retryAfterSeconds, scopes) => {
    const delivery: {
      kind: "response";
      relatedTo?: RequestId;
      tag?: unknown;
      error?: number;
      retryAfterSeconds?: number;
      scopes?: readonly string[];
    } = { kind: "response", tag };
    if (id !== null) delivery.relatedTo = id;
    if (error !== undefined) delivery.error = error;
    if (retryAfterSeconds !== undefined) delivery.retryAfterSeconds = retryAfterSeconds;
    if (scopes !== undefined) delivery.scopes = scopes;
    this.#send(line, delivery);
  };

  successLine(id: string, result: Record<string, unknown> | StampedResult): string {
    try {
      if (result instanceof StampedResult) {
        let json = JSON.stringify(result.result);
        // Not an object's JSON (a boxed primitive a middleware returned): its own keys, as a stamped copy has them.
        if (json.charCodeAt(0) !== 123) json = JSON.stringify({ ...result.result });
        const body = json === "{}" ? `{${result.tail.slice(1)}` : `${json.slice(0, -1)}${result.tail}`;
        return `{"jsonrpc":"2.0","id":${id},"result":${body}}`;
      }
      return `{"jsonrpc":"2.0","id":${id},"result":${JSON.stringify(result)}}`;
    } catch (error) {
      // A result that cannot be serialized (a BigInt, a cycle) is still one reply for its id.
      this.#core.log({
        level: "error",
        message: `a result could not be serialized: ${String(error)}`,
        error,
        method: "(serialize)",
      });
      return this.errorLine(id, INTERNAL_ERROR);
    }
  }

  errorLine(id: string, error: JsonRpcErrorObject): string {
    return errorLine(id, error, this.#unserializable);
  }

  readonly #unserializable = (thrown: unknown) =>
    this.#core.log({
      level: "error",
      message: "error data could not be serialized",
      error: thrown,
      method: "(serialize)",
    });

  emit(message: Record<string, unknown>, delivery: Delivery): void {
    let line: string;
    try {
      line = JSON.stringify(message);
    } catch (error) {
      this.#core.log({ level: "error", message: `a ${String(message.method)} message could not be serialized`, error });
      return;
    }
    this.#send(line, delivery);
  }

  notify(method: string, params: Record<string, unknown>, relatedTo: RequestId | undefined, tag?: unknown): void {
    this.emit(
      { jsonrpc: "2.0", method, params },
      relatedTo === undefined ? { kind: "notification" } : { kind: "notification", relatedTo, tag },
    );
  }
}
