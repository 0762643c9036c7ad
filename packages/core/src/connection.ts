import { InputRequired, type InputRound, inputRound } from "./ask.js";
import { type AuthInfo, type ContextPort, metaOf, RequestContextImpl } from "./context.js";
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
import { ClientError, isMcpError, McpError, toWireError } from "./errors.js";
import { type AskTarget, inputRequired, openRound } from "./input-required.js";
import { ErrorCode, isPlainObject, type JsonRpcErrorObject, type RequestId } from "./json-rpc.js";
import type { LogLevel } from "./logger.js";
import { andThen, isPromiseLike, type MaybePromise } from "./maybe.js";
import {
  CACHE_HINT,
  type ConnectionControl,
  type ListenFilter,
  METHODS,
  type Method,
  type MethodEnv,
} from "./methods.js";
import { describeOperation, runMiddleware } from "./middleware.js";
import {
  HANDSHAKE_VERSIONS,
  isHandshakeVersion,
  isStatelessVersion,
  MetaKey,
  negotiateHandshakeVersion,
  type ProtocolVersion,
  STATELESS_VERSIONS,
} from "./protocol.js";
import { idText } from "./raw-id.js";
import { featuresOf, type RevisionFeatures } from "./revision.js";
import type { ChangeKind } from "./router.js";
import type { ConnectionListener, ServerCore } from "./server-core.js";
import type { Implementation } from "./types.js";
import { check, Envelope, issuesText, RequestMeta, schemas } from "./wire.js";

/** What a line the connection sends is, and which client request it belongs to: what a transport routes by. */
export interface Route {
  /** `response`: the reply to a client request; `notification`; `request`: the server asking the client. */
  readonly kind: "response" | "notification" | "request";
  /** The client request this message answers or was sent while serving (a listen stream's id for its messages). */
  readonly relatedTo?: RequestId;
  /** The `tag` the transport gave `receive` for the message that brought that request. */
  readonly tag?: unknown;
  /** For an error response: its JSON-RPC error code (HTTP picks a status by it). */
  readonly error?: number;
}

/** How a transport connects: where the connection's lines go, and what the transport knows of the peer. */
export interface ConnectOptions {
  /** Every line the connection says goes here, in order: replies, notifications, requests to the client. */
  send(line: string, route: Route): void;
  /** The caller, when the transport authenticated one for the whole connection. */
  auth?: AuthInfo;
  /** Copied into every request's `ctx.extra`. */
  extra?: Record<string, unknown>;
}

/** What a transport knows about one incoming message. */
export interface ReceiveOptions {
  /** The caller of this message (HTTP authenticates each request). */
  auth?: AuthInfo;
  extra?: Record<string, unknown>;
  /** Anything the transport wants back on every line this message causes (`route.tag`): a stream, a phase. */
  tag?: unknown;
  /** The line already parsed (`JSON.parse(line)`), when the transport had to look inside: it is not parsed again. */
  parsed?: unknown;
}

type Params = Record<string, unknown> | undefined;
type Respond = (line: string, id: RequestId | null, tag: unknown, error?: number) => void;

const NO_REPLY: unique symbol = Symbol("no reply");
type Outcome = Record<string, unknown> | typeof NO_REPLY;

const ALL_VERSIONS: readonly ProtocolVersion[] = [...STATELESS_VERSIONS, ...HANDSHAKE_VERSIONS];
const INTERNAL_ERROR: JsonRpcErrorObject = { code: ErrorCode.InternalError, message: "Internal error" };

interface Pending {
  settle(message: Record<string, unknown>): void;
  fail(error: unknown): void;
}

interface Listen {
  readonly id: RequestId;
  readonly tag: unknown;
  readonly ctx: RequestContextImpl;
  readonly filter: ListenFilter;
  end(): void;
}

function invalidParams(message: string, data?: unknown): McpError {
  return new McpError(ErrorCode.InvalidParams, message, data);
}

function invalidRequest(message: string): McpError {
  return new McpError(ErrorCode.InvalidRequest, `Invalid request: ${message}`);
}

// In-flight requests are keyed by id, strings and numbers apart.
function keyOf(id: RequestId): string {
  return typeof id === "string" ? `s${id}` : `n${id}`;
}

/** A request being served, as its continuations need it. */
interface Served {
  readonly handler: Method;
  readonly method: string;
  readonly params: Params;
  readonly ctx: RequestContextImpl;
  readonly key: string;
  readonly mayAsk: boolean;
}

function askTarget(handler: Method, method: string, params: Params, auth: AuthInfo | undefined): AskTarget {
  const { target, args } = (handler.asks as NonNullable<Method["asks"]>)(params);
  return { method, target, args, auth };
}

function withoutHint(result: Record<string, unknown>): Record<string, unknown> {
  if (!(CACHE_HINT in result)) return result;
  const { [CACHE_HINT]: _hint, ...rest } = result as Record<string | symbol, unknown>;
  return rest as Record<string, unknown>;
}

/**
 * One connection: messages in through `receive`, everything out through the transport's `send`: replies,
 * notifications, and the server's own requests to the client, whose answers come back through `receive` too.
 * Holds the connection's era. Transports create one per connection with `server.connect({ send })`.
 */
export class Connection implements ContextPort, ConnectionControl, ConnectionListener {
  #state: ConnectionState = FRESH;
  readonly #core: ServerCore;
  readonly #send: (line: string, route: Route) => void;
  readonly #auth: AuthInfo | undefined;
  readonly #extra: Record<string, unknown> | undefined;
  readonly #env: MethodEnv;
  readonly #inFlight = new Map<string, RequestContextImpl>();
  readonly #outbound = new Map<number, Pending>();
  // A subscription remembers who subscribed: an update goes only to a caller who may read the resource.
  readonly #subscriptions = new Map<string, RequestContextImpl>();
  readonly #listens = new Map<string, Listen>();
  #nextId = 0;
  #logLevel: LogLevel | undefined;
  #attached = false;
  #closed = false;

  constructor(core: ServerCore, options: ConnectOptions) {
    this.#core = core;
    this.#send = options.send;
    this.#auth = options.auth;
    this.#extra = options.extra;
    this.#env = { core, connection: this };
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

  /** How many client requests are being served right now. */
  get pending(): number {
    return this.#inFlight.size;
  }

  /** The handshake era's `logging/setLevel` level. */
  get logLevel(): LogLevel | undefined {
    return this.#logLevel;
  }

  /**
   * Take one line of JSON text. Its reply, and anything else it causes, goes out through `send`. When every
   * handler the message reaches answers synchronously, so does this (no promise is made, the reply has been sent
   * when it returns); otherwise it returns a promise that settles once the reply has been sent.
   */
  receive(line: string, options?: ReceiveOptions): MaybePromise<void> {
    let message: unknown = options?.parsed;
    try {
      if (message === undefined) message = JSON.parse(line);
    } catch {
      this.#respond(
        this.#errorLine("null", { code: ErrorCode.ParseError, message: "Parse error: the message is not valid JSON" }),
        null,
        options?.tag,
        ErrorCode.ParseError,
      );
      return;
    }
    if (Array.isArray(message)) return this.#batch(message, options);
    return this.#single(message, line, false, options, this.#respond);
  }

  /** Abort every request in flight, fail the server's unanswered requests, and stop hearing about list changes. */
  close(reason?: unknown): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#attached) this.#core.detach(this);
    // Most connections close with nothing in flight (HTTP makes one per request): no error is made for them.
    if (this.#inFlight.size === 0 && this.#outbound.size === 0) return;
    const why = reason ?? new Error("connection closed");
    for (const ctx of this.#inFlight.values()) ctx.abort(why);
    const pending = [...this.#outbound.values()];
    this.#outbound.clear();
    for (const request of pending) request.fail(why);
  }

  /** End every `subscriptions/listen` stream gracefully, with its result (a transport shutting down calls this). */
  endSubscriptions(): void {
    for (const listen of [...this.#listens.values()]) listen.end();
  }

  readonly #respond: Respond = (line, id, tag, error) => {
    const route: { kind: "response"; relatedTo?: RequestId; tag?: unknown; error?: number } = { kind: "response", tag };
    if (id !== null) route.relatedTo = id;
    if (error !== undefined) route.error = error;
    this.#send(line, route);
  };

  #successLine(id: string, result: Record<string, unknown>): string {
    try {
      return `{"jsonrpc":"2.0","id":${id},"result":${JSON.stringify(result)}}`;
    } catch (error) {
      // A result that cannot be serialized (a BigInt, a cycle) is still one reply for its id.
      this.#core.log({
        level: "error",
        message: `a result could not be serialized: ${String(error)}`,
        error,
        method: "(serialize)",
      });
      return this.#errorLine(id, INTERNAL_ERROR);
    }
  }

  #errorLine(id: string, error: JsonRpcErrorObject): string {
    try {
      return `{"jsonrpc":"2.0","id":${id},"error":${JSON.stringify(error)}}`;
    } catch (thrown) {
      this.#core.log({
        level: "error",
        message: "error data could not be serialized",
        error: thrown,
        method: "(serialize)",
      });
      return `{"jsonrpc":"2.0","id":${id},"error":${JSON.stringify(INTERNAL_ERROR)}}`;
    }
  }

  #emit(message: Record<string, unknown>, route: Route): void {
    let line: string;
    try {
      line = JSON.stringify(message);
    } catch (error) {
      this.#core.log({ level: "error", message: `a ${String(message.method)} message could not be serialized`, error });
      return;
    }
    this.#send(line, route);
  }

  notify(method: string, params: Record<string, unknown>, relatedTo: RequestId | undefined, tag?: unknown): void {
    this.#emit(
      { jsonrpc: "2.0", method, params },
      relatedTo === undefined ? { kind: "notification" } : { kind: "notification", relatedTo, tag },
    );
  }

  // ── Batches (2025-03-26): one entry at a time, one reply line for all of them ──

  #batch(messages: unknown[], options: ReceiveOptions | undefined): MaybePromise<void> {
    if (messages.length === 0) {
      this.#respond(
        this.#errorLine("null", { code: ErrorCode.InvalidRequest, message: "Invalid request: an empty batch" }),
        null,
        options?.tag,
        ErrorCode.InvalidRequest,
      );
      return;
    }
    const version = this.negotiatedVersion;
    if (version === undefined || !featuresOf(version).batches) {
      this.#respond(
        this.#errorLine("null", {
          code: ErrorCode.InvalidRequest,
          message: "Invalid request: JSON-RPC batches are accepted only in a 2025-03-26 session, after initialize",
        }),
        null,
        options?.tag,
        ErrorCode.InvalidRequest,
      );
      return;
    }
    const replies: string[] = [];
    const collect: Respond = (line) => replies.push(line);
    const from = (start: number): MaybePromise<void> => {
      for (let index = start; index < messages.length; index++) {
        const done = this.#single(messages[index], undefined, true, options, collect);
        if (isPromiseLike<void>(done)) return Promise.resolve(done).then(() => from(index + 1));
      }
      if (replies.length > 0) this.#respond(`[${replies.join(",")}]`, null, options?.tag);
    };
    return from(0);
  }

  // ── One message ──

  #single(
    message: unknown,
    line: string | undefined,
    inBatch: boolean,
    options: ReceiveOptions | undefined,
    respond: Respond,
  ): MaybePromise<void> {
    const parsed = check(Envelope, message);
    if (!parsed.success) {
      // A response: the answer to one of the server's own requests, or to nothing (JSON-RPC never answers it).
      if (isPlainObject(message) && !("method" in message) && ("result" in message || "error" in message)) {
        this.#settleOutbound(message);
        return;
      }
      const text = isPlainObject(message) ? idText(message.id, line) : "null";
      respond(
        this.#errorLine(text, {
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
    if (id === undefined) {
      this.#notification(method, params);
      return;
    }
    return this.#request(id, idText(id, line), method, params, inBatch, options, respond);
  }

  // The one error boundary: whatever is thrown below becomes this request's one error reply. Written without
  // closures on the way: a synchronous handler's reply costs no allocation beyond its own.
  #request(
    id: RequestId,
    text: string,
    method: string,
    params: Params,
    inBatch: boolean,
    options: ReceiveOptions | undefined,
    respond: Respond,
  ): MaybePromise<void> {
    let outcome: MaybePromise<Outcome>;
    try {
      outcome = this.#route(id, method, params, inBatch, options);
    } catch (error) {
      this.#fail(error, id, text, method, options, respond);
      return;
    }
    if (isPromiseLike<Outcome>(outcome)) {
      return Promise.resolve(outcome).then(
        (settled) => this.#succeed(settled, id, text, options, respond),
        (error: unknown) => this.#fail(error, id, text, method, options, respond),
      );
    }
    this.#succeed(outcome, id, text, options, respond);
  }

  #succeed(outcome: Outcome, id: RequestId, text: string, options: ReceiveOptions | undefined, respond: Respond): void {
    if (outcome !== NO_REPLY) respond(this.#successLine(text, outcome), id, options?.tag);
  }

  #fail(
    error: unknown,
    id: RequestId,
    text: string,
    method: string,
    options: ReceiveOptions | undefined,
    respond: Respond,
  ): void {
    if (!isMcpError(error)) {
      this.#core.log({ level: "error", message: `${method} failed: ${String(error)}`, error, method, requestId: id });
    }
    const wire = toWireError(error);
    respond(this.#errorLine(text, wire), id, options?.tag, wire.code);
  }

  #route(
    id: RequestId,
    method: string,
    params: Params,
    inBatch: boolean,
    options: ReceiveOptions | undefined,
  ): MaybePromise<Outcome> {
    const state = this.#state;
    switch (state.kind) {
      case "fresh":
        if (method === "initialize") {
          if (inBatch) throw invalidRequest("initialize cannot be part of a batch");
          return this.#initialize(state, params);
        }
        if (isPlainObject(params?._meta) && MetaKey.protocolVersion in params._meta) {
          return this.#stateless(state, id, method, params, options);
        }
        if (method === "ping") return {};
        throw invalidParams(
          `Missing params._meta["${MetaKey.protocolVersion}"]: a 2026-07-28 request must carry it, and a client of an earlier revision must send initialize first`,
        );
      case "handshaking":
      case "operating":
        if (method === "initialize") throw invalidRequest("this connection is already initialized");
        return this.#handshake(state.session, id, method, params, options);
      case "stateless":
        if (method === "initialize" && !inBatch) return this.#initialize(state, params);
        return this.#stateless(state, id, method, params, options);
    }
  }

  #method(method: string, revision: RevisionFeatures): Method {
    const handler = Object.hasOwn(METHODS, method) ? METHODS[method] : undefined;
    if (handler === undefined || revision.removedMethods.has(method)) {
      const why = handler
        ? ` (${revision.era === "stateless" ? "removed in" : "not part of"} protocol revision ${revision.version})`
        : "";
      throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${method}${why}`);
    }
    return handler;
  }

  #capable(method: string, handler: Method): void {
    if (handler.capability && this.#core.router.capabilities()[handler.capability] === undefined) {
      throw new McpError(
        ErrorCode.MethodNotFound,
        `Method not found: ${method} (this server has no ${handler.capability})`,
      );
    }
  }

  #initialize(state: Fresh | Stateless, params: Params): Record<string, unknown> {
    const parsed = schemas().initializeParams.safeParse(params ?? {});
    if (!parsed.success) throw invalidParams(`Invalid initialize params: ${issuesText(parsed.error.issues)}`);
    const { protocolVersion, capabilities, clientInfo } = parsed.data;
    const session: HandshakeSession = {
      protocolVersion: negotiateHandshakeVersion(protocolVersion),
      clientInfo: clientInfo as Implementation,
      clientCapabilities: capabilities,
    };
    this.#state = initialize(state, session);
    return this.#core.initializeResult(session.protocolVersion);
  }

  #handshake(
    session: HandshakeSession,
    id: RequestId,
    method: string,
    params: Params,
    options: ReceiveOptions | undefined,
  ): MaybePromise<Outcome> {
    const revision = featuresOf(session.protocolVersion);
    const handler = this.#method(method, revision);
    this.#capable(method, handler);
    const ctx = new RequestContextImpl({
      requestId: id,
      revision,
      clientInfo: session.clientInfo,
      clientCapabilities: session.clientCapabilities,
      meta: metaOf(params),
      auth: options?.auth ?? this.#auth,
      extra: this.#extraFor(options),
      port: this,
      tag: options?.tag,
    });
    return this.#run(handler, method, params, ctx, false);
  }

  #stateless(
    state: Fresh | Stateless,
    id: RequestId,
    method: string,
    params: Params,
    options: ReceiveOptions | undefined,
  ): MaybePromise<Outcome> {
    const meta = params?._meta;
    const requested = isPlainObject(meta) ? meta[MetaKey.protocolVersion] : undefined;
    const revision = featuresOf(isStatelessVersion(requested) ? requested : STATELESS_VERSIONS[0]);
    const handler = this.#method(method, revision);
    if (!isPlainObject(meta) || typeof requested !== "string") {
      throw invalidParams(`Missing params._meta["${MetaKey.protocolVersion}"]: every 2026-07-28 request must carry it`);
    }
    if (!isStatelessVersion(requested)) {
      throw new McpError(
        ErrorCode.UnsupportedProtocolVersion,
        isHandshakeVersion(requested)
          ? `Unsupported protocol version in _meta: ${requested} is served after initialize; per-request _meta is for 2026-07-28`
          : `Unsupported protocol version: ${requested}`,
        { supported: ALL_VERSIONS, requested },
      );
    }
    const parsed = check(RequestMeta, meta);
    if (!parsed.success) throw invalidParams(`Invalid params._meta: ${issuesText(parsed.error.issues)}`);
    this.#state = servedStateless(state);
    this.#capable(method, handler);
    const auth = options?.auth ?? this.#auth;
    const make = (round: InputRound | undefined) =>
      new RequestContextImpl({
        requestId: id,
        revision,
        clientInfo: parsed.data[MetaKey.clientInfo] as Implementation | undefined,
        clientCapabilities: parsed.data[MetaKey.clientCapabilities],
        meta,
        auth,
        extra: this.#extraFor(options),
        port: this,
        inputs: round,
        tag: options?.tag,
      });
    if (!handler.asks) return this.#run(handler, method, params, make(undefined), false);
    // Only a retry has a state to open (asynchronously, to check its seal); a first call stays synchronous.
    if (params?.requestState === undefined && params?.inputResponses === undefined) {
      return this.#run(handler, method, params, make(inputRound(undefined)), true);
    }
    // The request is in flight (so a cancellation finds it) while its state is checked.
    const ctx = make(undefined);
    const key = this.#register(ctx);
    const served: Served = { handler, method, params, ctx, key, mayAsk: true };
    const target = askTarget(handler, method, params, auth);
    let opened: MaybePromise<InputRound>;
    try {
      opened = openRound(this.#core.sealer, params, target, Date.now());
    } catch (error) {
      this.#done(served);
      throw error;
    }
    return Promise.resolve(opened).then(
      (round) => {
        ctx.inputs = round;
        if (ctx.cancelled) {
          this.#done(served);
          return NO_REPLY;
        }
        return this.#invoke(served);
      },
      (error: unknown) => this.#failed(error, served),
    );
  }

  #extraFor(options: ReceiveOptions | undefined): Record<string, unknown> | undefined {
    if (this.#extra === undefined && options?.extra === undefined) return undefined;
    return { ...this.#extra, ...options?.extra };
  }

  #run(
    handler: Method,
    method: string,
    params: Params,
    ctx: RequestContextImpl,
    mayAsk: boolean,
  ): MaybePromise<Outcome> {
    return this.#invoke({ handler, method, params, ctx, key: this.#register(ctx), mayAsk });
  }

  // In flight from here until answered: the id is taken, and a cancellation finds the request.
  #register(ctx: RequestContextImpl): string {
    const key = keyOf(ctx.requestId);
    if (this.#inFlight.has(key)) {
      throw invalidRequest(`id ${JSON.stringify(ctx.requestId)} is already in use by a request in flight`);
    }
    this.#inFlight.set(key, ctx);
    return key;
  }

  #invoke(served: Served): MaybePromise<Outcome> {
    const { handler, params, ctx } = served;
    const { middleware } = this.#core;
    let result: MaybePromise<Record<string, unknown>>;
    try {
      // Without middleware, nothing of its machinery runs.
      result =
        middleware.length === 0 || handler.operation === undefined
          ? handler.run(this.#env, params, ctx)
          : runMiddleware(middleware, describeOperation(served.method, handler.operation, params, ctx), () =>
              handler.run(this.#env, params, ctx),
            );
    } catch (error) {
      return this.#failed(error, served);
    }
    if (isPromiseLike<Record<string, unknown>>(result)) {
      return Promise.resolve(result).then(
        (value) => this.#answered(value, served),
        (error: unknown) => this.#failed(error, served),
      );
    }
    return this.#answered(result, served);
  }

  // A list that may differ per caller (guards, or middleware that could filter it) must not be cached publicly.
  #perCaller(handler: Method): boolean {
    if (handler.operation !== "list") return false;
    if (this.#core.middleware.length > 0) return true;
    const kind = handler.capability;
    return (kind === "tools" || kind === "prompts" || kind === "resources") && this.#core.router.dependsOnCaller(kind);
  }

  #done({ ctx, key }: Served): void {
    ctx.finish();
    if (this.#inFlight.get(key) === ctx) this.#inFlight.delete(key);
  }

  #answered(result: Record<string, unknown>, served: Served): MaybePromise<Outcome> {
    const { ctx } = served;
    // A handler that swallowed the question still has no answer to it.
    if (served.mayAsk && ctx.inputs?.asked !== undefined) return this.#needsInput(served);
    this.#done(served);
    if (ctx.cancelled) return NO_REPLY;
    if (!ctx.revision.resultType) return withoutHint(result);
    return this.#core.complete(result, served.handler.cache, this.#perCaller(served.handler));
  }

  #failed(error: unknown, served: Served): MaybePromise<Outcome> {
    if (error instanceof InputRequired && served.mayAsk) return this.#needsInput(served);
    this.#done(served);
    if (served.ctx.cancelled) return NO_REPLY;
    if (error instanceof InputRequired) throw new Error("a handler asked the client outside a request that may ask");
    throw error;
  }

  // 2026-07-28: the handler asked what this round cannot answer: the request is answered input_required.
  async #needsInput(served: Served): Promise<Outcome> {
    const { handler, method, params, ctx } = served;
    try {
      const result = await inputRequired(
        this.#core.sealer,
        ctx.inputs as InputRound,
        askTarget(handler, method, params, ctx.auth),
        Date.now(),
        this.#core.requestStateTtlMs,
      );
      return ctx.cancelled ? NO_REPLY : this.#core.complete(result, undefined);
    } finally {
      this.#done(served);
    }
  }

  // ── Notifications from the client ──

  #notification(method: string, params: Params): void {
    const state = this.#state;
    if (method === "notifications/initialized") {
      if (state.kind === "handshaking") {
        this.#state = initialized(state);
        this.#attach();
      }
    } else if (method === "notifications/cancelled") {
      const parsed = schemas().cancelledParams.safeParse(params ?? {});
      if (!parsed.success) return;
      const key = keyOf(parsed.data.requestId);
      const ctx = this.#inFlight.get(key);
      if (ctx) {
        // The id is free again at once; the cancelled handler's late finish answers nothing.
        this.#inFlight.delete(key);
        ctx.cancel(parsed.data.reason ?? "cancelled by the client");
      }
    }
  }

  #attach(): void {
    if (this.#attached || this.#closed) return;
    this.#attached = true;
    this.#core.attach(this);
  }

  // ── The server asking the client (handshake era) ──

  request(
    method: string,
    params: Record<string, unknown>,
    options: { relatedTo: RequestId; tag: unknown; signal: AbortSignal },
  ): Promise<Record<string, unknown>> {
    const { relatedTo, tag, signal } = options;
    if (this.#closed) return Promise.reject(new Error(`cannot send ${method}: the connection is closed`));
    if (signal.aborted) return Promise.reject(signal.reason);
    const id = this.#nextId++;
    const timeoutMs = this.#core.clientRequestTimeoutMs;
    return new Promise((resolve, reject) => {
      const cleanup = () => {
        clearTimeout(timer);
        signal.removeEventListener("abort", onAbort);
      };
      // Abandoned (timed out, or the request it serves was cancelled): the client is told to stop.
      const abandon = (error: unknown, reason: string) => {
        if (!this.#outbound.delete(id)) return;
        cleanup();
        this.notify("notifications/cancelled", { requestId: id, reason }, relatedTo, tag);
        reject(error);
      };
      const onAbort = () => abandon(signal.reason, "the request that asked was cancelled");
      const timer = setTimeout(
        () =>
          abandon(
            new Error(`The client did not answer ${method} within ${timeoutMs} ms`),
            `timed out after ${timeoutMs} ms`,
          ),
        timeoutMs,
      );
      (timer as { unref?: () => void }).unref?.();
      signal.addEventListener("abort", onAbort, { once: true });
      this.#outbound.set(id, {
        settle: (message) => {
          cleanup();
          if (isPlainObject(message.error)) {
            const { code, message: text, data } = message.error;
            reject(
              new ClientError(method, typeof code === "number" ? code : ErrorCode.InternalError, String(text), data),
            );
          } else if (isPlainObject(message.result)) {
            resolve(message.result);
          } else {
            reject(new McpError(ErrorCode.InvalidParams, `The client's answer to ${method} has no result object`));
          }
        },
        fail: (error) => {
          cleanup();
          reject(error);
        },
      });
      this.#emit({ jsonrpc: "2.0", id, method, params }, { kind: "request", relatedTo, tag });
    });
  }

  #settleOutbound(message: Record<string, unknown>): void {
    const id = message.id;
    if (typeof id !== "number") return;
    const pending = this.#outbound.get(id);
    if (!pending) return;
    this.#outbound.delete(id);
    pending.settle(message);
  }

  // ── Connection-scoped methods ──

  setLogLevel(level: LogLevel): void {
    this.#logLevel = level;
  }

  subscribe(uri: string, ctx: RequestContextImpl): void {
    this.#subscriptions.set(uri, ctx);
  }

  unsubscribe(uri: string): void {
    this.#subscriptions.delete(uri);
  }

  listen(filter: ListenFilter, ctx: RequestContextImpl): Promise<Record<string, unknown>> {
    const capabilities = this.#core.router.capabilities();
    const honoured: ListenFilter = {};
    if (filter.toolsListChanged && capabilities.tools) honoured.toolsListChanged = true;
    if (filter.promptsListChanged && capabilities.prompts) honoured.promptsListChanged = true;
    if (filter.resourcesListChanged && capabilities.resources) honoured.resourcesListChanged = true;
    if (filter.resourceSubscriptions && filter.resourceSubscriptions.length > 0 && capabilities.resources) {
      honoured.resourceSubscriptions = [...filter.resourceSubscriptions];
    }
    const id = ctx.requestId;
    const key = keyOf(id);
    const meta = { [MetaKey.subscriptionId]: id };
    this.notify("notifications/subscriptions/acknowledged", { _meta: meta, notifications: honoured }, id, ctx.tag);
    this.#attach();
    return new Promise((resolve) => {
      // Ended by the server (its closing result) or by a cancellation (no reply): the stream stops either way.
      const end = () => {
        if (this.#listens.get(key)?.filter === honoured) this.#listens.delete(key);
        resolve({ _meta: meta });
      };
      this.#listens.set(key, { id, tag: ctx.tag, ctx, filter: honoured, end });
      ctx.signal.addEventListener("abort", end, { once: true });
    });
  }

  // ── What the server tells every connection ──

  listChanged(kind: ChangeKind): void {
    const method = `notifications/${kind}/list_changed`;
    if (this.#state.kind === "operating") this.#emit({ jsonrpc: "2.0", method }, { kind: "notification" });
    const wanted =
      kind === "tools" ? "toolsListChanged" : kind === "prompts" ? "promptsListChanged" : "resourcesListChanged";
    for (const listen of this.#listens.values()) {
      if (listen.filter[wanted]) {
        this.notify(method, { _meta: { [MetaKey.subscriptionId]: listen.id } }, listen.id, listen.tag);
      }
    }
  }

  resourceUpdated(uri: string): void {
    const router = this.#core.router;
    const subscriber = this.#subscriptions.get(uri);
    if (this.#state.kind === "operating" && subscriber && router.canRead(uri, subscriber)) {
      this.#emit(
        { jsonrpc: "2.0", method: "notifications/resources/updated", params: { uri } },
        { kind: "notification" },
      );
    }
    for (const listen of this.#listens.values()) {
      if (listen.filter.resourceSubscriptions?.includes(uri) && router.canRead(uri, listen.ctx)) {
        this.notify(
          "notifications/resources/updated",
          { uri, _meta: { [MetaKey.subscriptionId]: listen.id } },
          listen.id,
          listen.tag,
        );
      }
    }
  }
}
