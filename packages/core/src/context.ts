import type { RequestId } from "./json-rpc.js";
import type { ProtocolVersion } from "./protocol.js";
import type { Implementation } from "./types.js";

/** Which protocol era a request arrived in. */
export type Era = "handshake" | "stateless";

/**
 * What a handler knows about the request it is serving; always the handler's last parameter.
 * @example
 * server.tool({ name: "slow", description: "Waits", handler: (_args, ctx) => wait(1000, ctx.signal) });
 */
export interface RequestContext {
  /** The JSON-RPC id of this request. */
  readonly requestId: RequestId;
  /** The revision this request speaks: negotiated by `initialize`, or carried in `_meta`. */
  readonly protocolVersion: ProtocolVersion;
  readonly era: Era;
  /** Who is calling, when the client said (always in the handshake era; optional in 2026-07-28). */
  readonly clientInfo: Implementation | undefined;
  readonly clientCapabilities: Readonly<Record<string, unknown>>;
  /** Aborted when the client cancels this request or the connection closes. */
  readonly signal: AbortSignal;
  /** The request's raw `params._meta`, if any. */
  readonly meta: Readonly<Record<string, unknown>> | undefined;
}

/** A request's context; its AbortController is made only when a handler asks for the signal. */
export class RequestContextImpl implements RequestContext {
  #controller: AbortController | undefined;
  #abortReason: unknown;
  #aborted = false;
  #cancelled = false;

  constructor(
    readonly requestId: RequestId,
    readonly protocolVersion: ProtocolVersion,
    readonly era: Era,
    readonly clientInfo: Implementation | undefined,
    readonly clientCapabilities: Readonly<Record<string, unknown>>,
    readonly meta: Readonly<Record<string, unknown>> | undefined,
  ) {}

  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#aborted) this.#controller.abort(this.#abortReason);
    }
    return this.#controller.signal;
  }

  get aborted(): boolean {
    return this.#aborted;
  }

  /** True once the client cancelled this request: its reply must not be sent. */
  get cancelled(): boolean {
    return this.#cancelled;
  }

  /** The client cancelled: abort, and answer nothing. */
  cancel(reason: unknown): void {
    this.#cancelled = true;
    this.abort(reason);
  }

  abort(reason: unknown): void {
    if (this.#aborted) return;
    this.#aborted = true;
    this.#abortReason = reason;
    this.#controller?.abort(reason);
  }
}
