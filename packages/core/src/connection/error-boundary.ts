import { refusedScopes } from "../context/scopes.js";
import { isEngineUnavailable } from "../engine/engine.js";
import { isMcpError, toWireError } from "../wire/errors.js";
import { ErrorCode, type JsonRpcErrorObject, type RequestId } from "../wire/json-rpc.js";
import { isPromiseLike, type MaybePromise } from "../wire/maybe.js";
import { requestKey } from "../wire/raw-id.js";
import type { ConnectOptions, ReceiveOptions } from "./connect-options.js";
import type { EraRouter } from "./era-routing.js";
import { NO_REPLY, type Params, type Reply } from "./in-flight.js";
import type { Outlet, Respond } from "./outlet.js";
import type { ServerCore } from "./server-core.js";

/**
 * The one error boundary: a request is served, and whatever is thrown on the way becomes its one error reply (an
 * `McpError` as itself; anything else as the generic -32603, logged and reported). Written without closures on the
 * way: a synchronous handler's reply costs no allocation beyond its own.
 */
export class ErrorBoundary {
  readonly #core: ServerCore;
  readonly #out: Outlet;
  readonly #eras: EraRouter;
  readonly #onInternalError: ConnectOptions["onInternalError"];

  constructor(core: ServerCore, out: Outlet, eras: EraRouter, onInternalError: ConnectOptions["onInternalError"]) {
    this.#core = core;
    this.#out = out;
    this.#eras = eras;
    this.#onInternalError = onInternalError;
  }

  /** Serve one request; `text`: its id as written, echoed in the reply. Settles once the reply has gone out. */
  serve(
    id: RequestId,
    text: string,
    method: string,
    params: Params,
    options: ReceiveOptions | undefined,
    respond: Respond,
  ): MaybePromise<void> {
    let reply: MaybePromise<Reply>;
    try {
      reply = this.#eras.route(id, requestKey(id, text), method, params, options);
    } catch (error) {
      this.#fail(error, id, text, method, options, respond);
      return;
    }
    if (isPromiseLike<Reply>(reply)) {
      return Promise.resolve(reply).then(
        (settled) => this.#succeed(settled, id, text, options, respond),
        (error: unknown) => this.#fail(error, id, text, method, options, respond),
      );
    }
    this.#succeed(reply, id, text, options, respond);
  }

  #succeed(reply: Reply, id: RequestId, text: string, options: ReceiveOptions | undefined, respond: Respond): void {
    if (reply !== NO_REPLY) respond(this.#out.successLine(text, reply), id, options?.tag);
  }

  #fail(
    error: unknown,
    id: RequestId,
    text: string,
    method: string,
    options: ReceiveOptions | undefined,
    respond: Respond,
  ): void {
    if (isEngineUnavailable(error)) {
      // A fault of the engine's store, not of the server: the client is told when to try again, never the details.
      this.#core.log({ level: "error", message: `${method} failed: ${String(error)}`, error, method, requestId: id });
      const wire = serviceUnavailable(error.retryAfterSeconds);
      respond(this.#out.errorLine(text, wire), id, options?.tag, wire.code, error.retryAfterSeconds);
      return;
    }
    if (!isMcpError(error)) {
      this.#core.log({ level: "error", message: `${method} failed: ${String(error)}`, error, method, requestId: id });
      this.#onInternalError?.(error, id);
    }
    const wire = toWireError(error);
    // A refusal for want of scopes tells the transport which (HTTP's 403 challenge names them).
    const scopes = wire.code === ErrorCode.InsufficientScope ? refusedScopes(wire.data) : undefined;
    respond(this.#out.errorLine(text, wire), id, options?.tag, wire.code, undefined, scopes);
  }
}

/**
 * The answer to a request the engine could not serve: -32000 "Service unavailable", with when to try again. The one
 * text for it: the HTTP transport's 503 carries it too.
 */
export function serviceUnavailable(retryAfterSeconds: number): JsonRpcErrorObject {
  return {
    code: ErrorCode.ServerError,
    message: `Service unavailable: the server's state store cannot be reached; try again in ${retryAfterSeconds} s`,
    data: { retryAfterSeconds },
  };
}
