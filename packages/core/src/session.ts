import { RequestContextImpl } from "./context.js";
import {
  type ConnectionState,
  FRESH,
  type Fresh,
  type HandshakeSession,
  initialize,
  initialized,
  type Phase,
  phaseOf,
  type Stateless,
  servedStateless,
} from "./era.js";
import { isMcpError, toWireError } from "./errors.js";
import {
  ErrorCode,
  failure,
  isPlainObject,
  isRequestId,
  type JsonRpcResponse,
  type RequestId,
  serialize,
  success,
} from "./json-rpc.js";
import { andThen, attempt, isPromiseLike, type MaybePromise } from "./maybe.js";
import { CACHE_HINT, COMMON_METHODS, type Method, REMOVED_IN_STATELESS } from "./methods.js";
import {
  featuresOf,
  HANDSHAKE_VERSIONS,
  isHandshakeVersion,
  isStatelessVersion,
  MetaKey,
  negotiateHandshakeVersion,
  type ProtocolVersion,
  STATELESS_VERSIONS,
} from "./protocol.js";
import type { ServerCore } from "./server.js";
import type { Implementation } from "./types.js";
import { check, Envelope, RequestMeta, schemas } from "./wire.js";

/** What one incoming message produces: nothing, one response, or (a 2025-03-26 batch) several. */
export type Reply = JsonRpcResponse | JsonRpcResponse[] | undefined;

type Params = Record<string, unknown> | undefined;

const PING: Method = { run: () => ({}) };
const HANDSHAKE_METHODS: Readonly<Record<string, Method>> = { ...COMMON_METHODS, ping: PING };
const ALL_VERSIONS: readonly ProtocolVersion[] = [...STATELESS_VERSIONS, ...HANDSHAKE_VERSIONS];

function methodNotFound(id: RequestId, method: string, why = ""): JsonRpcResponse {
  return failure(id, { code: ErrorCode.MethodNotFound, message: `Method not found: ${method}${why}` });
}

function invalidParams(id: RequestId, message: string, data?: unknown): JsonRpcResponse {
  return failure(
    id,
    data === undefined ? { code: ErrorCode.InvalidParams, message } : { code: ErrorCode.InvalidParams, message, data },
  );
}

function issuesText(issues: readonly { path: readonly PropertyKey[]; message: string }[]): string {
  return issues.map((issue) => `${issue.path.map(String).join(".") || "(message)"}: ${issue.message}`).join("; ");
}

/**
 * One connection's dispatcher: one message in, zero or one reply out. Holds the connection's era.
 * Transports create one per connection with `server.connect()`.
 */
export class Session {
  #state: ConnectionState = FRESH;
  readonly #core: ServerCore;
  readonly #inFlight = new Map<RequestId, RequestContextImpl>();

  constructor(core: ServerCore) {
    this.#core = core;
  }

  /** `handshake` until the handshake era's `notifications/initialized` or the first stateless request. */
  get phase(): Phase {
    return phaseOf(this.#state);
  }

  /** The revision `initialize` negotiated; undefined in the stateless era, where each request names its own. */
  get negotiatedVersion(): ProtocolVersion | undefined {
    const state = this.#state;
    return state.kind === "handshaking" || state.kind === "operating" ? state.session.protocolVersion : undefined;
  }

  /** How many requests are being served right now. */
  get pending(): number {
    return this.#inFlight.size;
  }

  /**
   * Handle one line of JSON text: the reply line, or undefined when there is none. When every handler the
   * message reaches answers synchronously, so does this (no promise is made); otherwise it returns a promise.
   */
  handleLine(line: string): MaybePromise<string | undefined> {
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      return JSON.stringify(
        failure(null, { code: ErrorCode.ParseError, message: "Parse error: the message is not valid JSON" }),
      );
    }
    return andThen(this.handleMessage(message), (reply) => {
      if (reply === undefined) return undefined;
      const report = (error: unknown) => this.#core.report(error, { method: "(serialize)" });
      // Each response on its own: one that cannot be serialized must not take a batch's others with it.
      return Array.isArray(reply)
        ? `[${reply.map((response) => serialize(response, report)).join(",")}]`
        : serialize(reply, report);
    });
  }

  /** Handle one parsed JSON-RPC message (synchronously when its handler is synchronous). */
  handleMessage(message: unknown): MaybePromise<Reply> {
    if (Array.isArray(message)) return this.#batch(message);
    return this.#single(message, false);
  }

  /** Abort every request in flight (their handlers see `ctx.signal` fire). */
  close(reason: unknown = new Error("connection closed")): void {
    for (const ctx of this.#inFlight.values()) ctx.abort(reason);
  }

  #batch(messages: unknown[]): MaybePromise<Reply> {
    if (messages.length === 0) {
      return failure(null, { code: ErrorCode.InvalidRequest, message: "Invalid request: an empty batch" });
    }
    const state = this.#state;
    const version =
      state.kind === "handshaking" || state.kind === "operating" ? state.session.protocolVersion : undefined;
    if (version === undefined || !featuresOf(version).batches) {
      return failure(null, {
        code: ErrorCode.InvalidRequest,
        message: "Invalid request: JSON-RPC batches are accepted only in a 2025-03-26 session, after initialize",
      });
    }
    // One entry at a time: a batch is one line to the transport, so its entries must not all run at once.
    const replies: JsonRpcResponse[] = [];
    const from = (start: number): MaybePromise<Reply> => {
      for (let index = start; index < messages.length; index++) {
        const reply = this.#single(messages[index], true);
        if (isPromiseLike<JsonRpcResponse | undefined>(reply)) {
          return Promise.resolve(reply).then((settled) => {
            if (settled) replies.push(settled);
            return from(index + 1);
          });
        }
        if (reply) replies.push(reply);
      }
      return replies.length === 0 ? undefined : replies;
    };
    return from(0);
  }

  #single(message: unknown, inBatch: boolean): MaybePromise<JsonRpcResponse | undefined> {
    const parsed = check(Envelope, message);
    if (!parsed.success) {
      // A response from the client answers nothing we asked; JSON-RPC never answers a response.
      if (isPlainObject(message) && !("method" in message) && ("result" in message || "error" in message))
        return undefined;
      const id = isPlainObject(message) && isRequestId(message.id) ? message.id : null;
      return failure(id, {
        code: ErrorCode.InvalidRequest,
        message: `Invalid request: ${issuesText(parsed.error.issues)}`,
      });
    }
    const { id, method, params } = parsed.data;
    if (id === undefined) {
      this.#notification(method, params);
      return undefined;
    }
    const state = this.#state;
    switch (state.kind) {
      case "fresh":
        if (method === "initialize") {
          if (inBatch) {
            return failure(id, {
              code: ErrorCode.InvalidRequest,
              message: "Invalid request: initialize cannot be part of a batch",
            });
          }
          return this.#initialize(state, id, params);
        }
        if (isPlainObject(params?._meta) && MetaKey.protocolVersion in params._meta) {
          return this.#stateless(state, id, method, params);
        }
        if (method === "ping") return success(id, {});
        return invalidParams(
          id,
          `Missing params._meta["${MetaKey.protocolVersion}"]: a 2026-07-28 request must carry it, and a client of an earlier revision must send initialize first`,
        );
      case "handshaking":
      case "operating":
        return this.#handshake(state.session, id, method, params);
      case "stateless":
        if (method === "initialize" && !inBatch) return this.#initialize(state, id, params);
        return this.#stateless(state, id, method, params);
    }
  }

  #notification(method: string, params: Params): void {
    const state = this.#state;
    if (method === "notifications/initialized") {
      if (state.kind === "handshaking") this.#state = initialized(state);
    } else if (method === "notifications/cancelled") {
      const parsed = schemas().cancelledParams.safeParse(params ?? {});
      const ctx = parsed.success ? this.#inFlight.get(parsed.data.requestId) : undefined;
      if (ctx && parsed.success) {
        // The id is free again at once; the cancelled handler's late finish answers nothing.
        this.#inFlight.delete(parsed.data.requestId);
        ctx.cancel(parsed.data.reason ?? "cancelled by the client");
      }
    }
  }

  #initialize(state: Fresh | Stateless, id: RequestId, params: Params): JsonRpcResponse {
    const parsed = schemas().initializeParams.safeParse(params ?? {});
    if (!parsed.success) return invalidParams(id, `Invalid initialize params: ${issuesText(parsed.error.issues)}`);
    const { protocolVersion, capabilities, clientInfo } = parsed.data;
    const session: HandshakeSession = {
      protocolVersion: negotiateHandshakeVersion(protocolVersion),
      clientInfo: clientInfo as Implementation,
      clientCapabilities: capabilities,
    };
    this.#state = initialize(state, session);
    const core = this.#core;
    const result: Record<string, unknown> = {
      protocolVersion: session.protocolVersion,
      capabilities: core.router.capabilities(),
      serverInfo: core.serverInfo(session.protocolVersion),
    };
    if (core.instructions !== undefined) result.instructions = core.instructions;
    return success(id, result);
  }

  #handshake(
    session: HandshakeSession,
    id: RequestId,
    method: string,
    params: Params,
  ): MaybePromise<JsonRpcResponse | undefined> {
    const handler = HANDSHAKE_METHODS[method];
    if (handler === undefined || !Object.hasOwn(HANDSHAKE_METHODS, method)) {
      if (method === "initialize") {
        return failure(id, {
          code: ErrorCode.InvalidRequest,
          message: "Invalid request: this connection is already initialized",
        });
      }
      return methodNotFound(id, method);
    }
    if (handler.capability && this.#core.router.capabilities()[handler.capability] === undefined) {
      return methodNotFound(id, method, ` (this server has no ${handler.capability})`);
    }
    const meta = isPlainObject(params?._meta) ? params._meta : undefined;
    const ctx = new RequestContextImpl(
      id,
      session.protocolVersion,
      "handshake",
      session.clientInfo,
      session.clientCapabilities,
      meta,
    );
    return this.#run(handler, method, params, ctx, false);
  }

  #stateless(
    state: Fresh | Stateless,
    id: RequestId,
    method: string,
    params: Params,
  ): MaybePromise<JsonRpcResponse | undefined> {
    const handler = method === "server/discover" ? this.#core.discover : COMMON_METHODS[method];
    if (handler === undefined || (method !== "server/discover" && !Object.hasOwn(COMMON_METHODS, method))) {
      return methodNotFound(
        id,
        method,
        REMOVED_IN_STATELESS.has(method) ? " (removed in protocol revision 2026-07-28)" : "",
      );
    }
    const meta = params?._meta;
    if (!isPlainObject(meta) || typeof meta[MetaKey.protocolVersion] !== "string") {
      return invalidParams(
        id,
        `Missing params._meta["${MetaKey.protocolVersion}"]: every 2026-07-28 request must carry it`,
      );
    }
    const requested = meta[MetaKey.protocolVersion];
    if (!isStatelessVersion(requested)) {
      return failure(id, {
        code: ErrorCode.UnsupportedProtocolVersion,
        message: isHandshakeVersion(requested)
          ? `Unsupported protocol version in _meta: ${requested} is served after initialize; per-request _meta is for 2026-07-28`
          : `Unsupported protocol version: ${requested}`,
        data: { supported: ALL_VERSIONS, requested },
      });
    }
    const parsed = check(RequestMeta, meta);
    if (!parsed.success) return invalidParams(id, `Invalid params._meta: ${issuesText(parsed.error.issues)}`);
    this.#state = servedStateless(state);
    if (handler.capability && this.#core.router.capabilities()[handler.capability] === undefined) {
      return methodNotFound(id, method, ` (this server has no ${handler.capability})`);
    }
    const clientInfo = parsed.data[MetaKey.clientInfo] as Implementation | undefined;
    const ctx = new RequestContextImpl(
      id,
      requested,
      "stateless",
      clientInfo,
      parsed.data[MetaKey.clientCapabilities],
      meta,
    );
    return this.#run(handler, method, params, ctx, true);
  }

  #run(
    handler: Method,
    method: string,
    params: Params,
    ctx: RequestContextImpl,
    stateless: boolean,
  ): MaybePromise<JsonRpcResponse | undefined> {
    const id = ctx.requestId;
    if (this.#inFlight.has(id)) {
      return failure(id, {
        code: ErrorCode.InvalidRequest,
        message: `Invalid request: id ${JSON.stringify(id)} is already in use by a request in flight`,
      });
    }
    this.#inFlight.set(id, ctx);
    const settle = () => {
      if (this.#inFlight.get(id) === ctx) this.#inFlight.delete(id);
    };
    const answered = (result: Record<string, unknown>): JsonRpcResponse | undefined => {
      settle();
      if (ctx.cancelled) return undefined;
      return success(id, stateless ? this.#core.complete(result, handler.cache) : withoutHint(result));
    };
    const failed = (error: unknown): JsonRpcResponse | undefined => {
      settle();
      if (ctx.cancelled) return undefined;
      if (!isMcpError(error)) this.#core.report(error, { method, requestId: id });
      return failure(id, toWireError(error));
    };
    return attempt(() => andThen(handler.run(this.#core.router, params, ctx), answered), failed);
  }
}

function withoutHint(result: Record<string, unknown>): Record<string, unknown> {
  if (!(CACHE_HINT in result)) return result;
  const { [CACHE_HINT]: _hint, ...rest } = result as Record<string | symbol, unknown>;
  return rest as Record<string, unknown>;
}
