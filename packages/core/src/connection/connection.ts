import { type InputRound, inputRound } from "../context/ask.js";
import { type AuthInfo, type ContextPort, checkedAuth, metaOf, RequestContextImpl } from "../context/context.js";
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
} from "../protocol/era.js";
import { check, Envelope, issuesText, RequestMeta, schemas } from "../protocol/inbound.js";
import type { LogLevel } from "../protocol/log-levels.js";
import { featuresOf, type RevisionFeatures } from "../protocol/revision.js";
import {
  HANDSHAKE_VERSIONS,
  isHandshakeVersion,
  isStatelessVersion,
  MetaKey,
  negotiateHandshakeVersion,
  type ProtocolVersion,
  STATELESS_VERSIONS,
} from "../protocol/versions.js";
import type { Audience, ChangeKind } from "../registry/router.js";
import { isMcpError, McpError, toWireError } from "../wire/errors.js";
import { ErrorCode, isPlainObject, type RequestId } from "../wire/json-rpc.js";
import { isPromiseLike, type MaybePromise } from "../wire/maybe.js";
import { idText, rawBatchIds, rawParamsNumber, requestKey } from "../wire/raw-id.js";
import type { Implementation, Tool } from "../wire/types.js";
import { InFlight, NO_REPLY, type Params, type Reply } from "./in-flight.js";
import { type ConnectionControl, type ListenFilter, METHODS, type Method } from "./methods.js";
import { OutboundRequests } from "./outbound-requests.js";
import { Outlet, type Respond, type Route } from "./outlet.js";
import type { ConnectionListener, ServerCore } from "./server-core.js";
import { Subscriptions } from "./subscriptions.js";

export type { Route } from "./outlet.js";

/** How a transport connects: where the connection's lines go, and what the transport knows of the peer. */
export interface ConnectOptions {
  /** Every line the connection says goes here, in order: replies, notifications, requests to the client. */
  send(line: string, route: Route): void;
  /** The caller, when the transport authenticated one for the whole connection (a TypeError without a subject). */
  auth?: AuthInfo;
  /** Copied into every request's `ctx.extra`. */
  extra?: Record<string, unknown>;
  /**
   * Told of each request answered with the generic -32603 "Internal error", with the error behind it that the wire
   * never carries, and of a guard that threw while serving a request (its item answered as one that does not exist).
   * The in-memory test client makes it the rejection's `cause`.
   */
  onInternalError?(error: unknown, requestId: RequestId): void;
}

/** What a transport knows about one incoming message. */
export interface ReceiveOptions {
  /** The caller of this message (HTTP authenticates each request); without a subject, the request gets -32603. */
  auth?: AuthInfo;
  extra?: Record<string, unknown>;
  /** Anything the transport wants back on every line this message causes (`route.tag`): a stream, a phase. */
  tag?: unknown;
  /** The line already parsed (`JSON.parse(line)`), when the transport had to look inside: it is not parsed again. */
  parsed?: unknown;
  /**
   * A check of a `tools/call` against the tool it reaches, made only once that tool is known to be this caller's
   * (a refused or unknown one answers as unknown first): throw an `McpError` to refuse. HTTP checks its
   * `Mcp-Param-*` headers here.
   */
  checkTool?: (tool: Tool) => void;
}

const ALL_VERSIONS: readonly ProtocolVersion[] = [...STATELESS_VERSIONS, ...HANDSHAKE_VERSIONS];

function invalidParams(message: string, data?: unknown): McpError {
  return new McpError(ErrorCode.InvalidParams, message, data);
}

function invalidRequest(message: string): McpError {
  return new McpError(ErrorCode.InvalidRequest, `Invalid request: ${message}`);
}

/**
 * One connection: messages in through `receive`, everything out through the transport's `send`: replies,
 * notifications, and the server's own requests to the client, whose answers come back through `receive` too.
 * Holds the connection's era. Transports create one per connection with `server.connect({ send })`.
 */
export class Connection implements ContextPort, ConnectionControl, ConnectionListener {
  #state: ConnectionState = FRESH;
  readonly #core: ServerCore;
  readonly #out: Outlet;
  readonly #auth: AuthInfo | undefined;
  readonly #extra: Record<string, unknown> | undefined;
  readonly #onInternalError: ConnectOptions["onInternalError"];
  readonly #inFlight: InFlight;
  readonly #outbound: OutboundRequests;
  readonly #subscriptions: Subscriptions;
  #logLevel: LogLevel | undefined;
  // The handshake-era caller as its latest request (initialize at first) showed it: whom a list change may reach.
  #caller: RequestContextImpl | undefined;
  #attached = false;
  #closed = false;

  constructor(core: ServerCore, options: ConnectOptions) {
    this.#core = core;
    this.#out = new Outlet(core, options.send);
    this.#inFlight = new InFlight(core, { core, connection: this });
    this.#outbound = new OutboundRequests(core, this.#out);
    this.#subscriptions = new Subscriptions(core, this.#out);
    this.#auth = options.auth === undefined ? undefined : checkedAuth(options.auth);
    this.#extra = options.extra;
    this.#onInternalError = options.onInternalError;
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
      this.#out.respond(
        this.#out.errorLine("null", {
          code: ErrorCode.ParseError,
          message: "Parse error: the message is not valid JSON",
        }),
        null,
        options?.tag,
        ErrorCode.ParseError,
      );
      return;
    }
    if (Array.isArray(message)) return this.#batch(message, line, options);
    return this.#single(message, line, false, options, this.#out.respond);
  }

  /** Abort every request in flight, fail the server's unanswered requests, and stop hearing about list changes. */
  close(reason?: unknown): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#attached) this.#core.detach(this);
    // Most connections close with nothing in flight (HTTP makes one per request): no error is made for them.
    if (this.#inFlight.size === 0 && this.#outbound.size === 0) return;
    const why = reason ?? new Error("connection closed");
    this.#inFlight.abortAll(why);
    this.#outbound.failAll(why);
  }

  /**
   * The client's input ended (stdin EOF): no answer can come any more, so the server's unanswered requests fail now
   * (a handler awaiting `ctx.elicit` sees it throw) and later ones fail at once. Requests in flight run on.
   */
  endOfInput(): void {
    this.#outbound.endOfInput();
  }

  /** End every `subscriptions/listen` stream gracefully, with its result (a transport shutting down calls this). */
  endSubscriptions(): void {
    this.#subscriptions.endAll();
  }

  notify(method: string, params: Record<string, unknown>, relatedTo: RequestId | undefined, tag?: unknown): void {
    this.#out.notify(method, params, relatedTo, tag);
  }

  crashed(error: unknown, requestId: RequestId): void {
    this.#onInternalError?.(error, requestId);
  }

  // ── Batches (2025-03-26): one entry at a time, one reply line for all of them ──

  #batch(messages: unknown[], line: string, options: ReceiveOptions | undefined): MaybePromise<void> {
    if (messages.length === 0) {
      this.#out.respond(
        this.#out.errorLine("null", { code: ErrorCode.InvalidRequest, message: "Invalid request: an empty batch" }),
        null,
        options?.tag,
        ErrorCode.InvalidRequest,
      );
      return;
    }
    const version = this.negotiatedVersion;
    if (version === undefined || !featuresOf(version).batches) {
      this.#out.respond(
        this.#out.errorLine("null", {
          code: ErrorCode.InvalidRequest,
          message: "Invalid request: JSON-RPC batches are accepted only in a 2025-03-26 session, after initialize",
        }),
        null,
        options?.tag,
        ErrorCode.InvalidRequest,
      );
      return;
    }
    // The client's answers in it are taken first: a request before them in the batch may be waiting for one.
    for (const entry of messages) {
      if (isPlainObject(entry) && !("method" in entry) && ("result" in entry || "error" in entry)) {
        this.#outbound.settle(entry);
      }
    }
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
        const done = this.#single(entry, undefined, true, options, collect, raw);
        if (isPromiseLike<void>(done)) return Promise.resolve(done).then(() => from(index + 1));
      }
      if (replies.length > 0) this.#out.respond(`[${replies.join(",")}]`, null, options?.tag);
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
    rawId?: string,
  ): MaybePromise<void> {
    const parsed = check(Envelope, message);
    if (!parsed.success) {
      // A response: the answer to one of the server's own requests, or to nothing (JSON-RPC never answers it).
      if (isPlainObject(message) && !("method" in message) && ("result" in message || "error" in message)) {
        this.#outbound.settle(message);
        return;
      }
      const text = rawId ?? (isPlainObject(message) ? idText(message.id, line) : "null");
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
    if (id === undefined) {
      this.#notification(method, params, line);
      return;
    }
    return this.#request(id, rawId ?? idText(id, line), method, params, inBatch, options, respond);
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
    let reply: MaybePromise<Reply>;
    try {
      reply = this.#route(id, requestKey(id, text), method, params, inBatch, options);
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
    if (!isMcpError(error)) {
      this.#core.log({ level: "error", message: `${method} failed: ${String(error)}`, error, method, requestId: id });
      this.#onInternalError?.(error, id);
    }
    const wire = toWireError(error);
    respond(this.#out.errorLine(text, wire), id, options?.tag, wire.code);
  }

  #route(
    id: RequestId,
    key: string,
    method: string,
    params: Params,
    inBatch: boolean,
    options: ReceiveOptions | undefined,
  ): MaybePromise<Reply> {
    const state = this.#state;
    switch (state.kind) {
      case "fresh":
        if (method === "initialize") {
          if (inBatch) throw invalidRequest("initialize cannot be part of a batch");
          return this.#initialize(state, id, key, params, options);
        }
        if (isPlainObject(params?._meta) && MetaKey.protocolVersion in params._meta) {
          return this.#stateless(state, id, key, method, params, options);
        }
        if (method === "ping") return {};
        throw invalidParams(
          `Missing params._meta["${MetaKey.protocolVersion}"]: a 2026-07-28 request must carry it, and a client of an earlier revision must send initialize first`,
        );
      case "handshaking":
      case "operating":
        if (method === "initialize") throw invalidRequest("this connection is already initialized");
        return this.#handshake(state.session, id, key, method, params, options);
      case "stateless":
        if (method === "initialize" && !inBatch) return this.#initialize(state, id, key, params, options);
        return this.#stateless(state, id, key, method, params, options);
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

  #initialize(
    state: Fresh | Stateless,
    id: RequestId,
    key: string,
    params: Params,
    options: ReceiveOptions | undefined,
  ): Record<string, unknown> {
    const parsed = schemas().initializeParams.safeParse(params ?? {});
    if (!parsed.success) throw invalidParams(`Invalid initialize params: ${issuesText(parsed.error.issues)}`);
    const { protocolVersion, capabilities, clientInfo } = parsed.data;
    const session: HandshakeSession = {
      protocolVersion: negotiateHandshakeVersion(protocolVersion),
      clientInfo: clientInfo as Implementation,
      clientCapabilities: capabilities,
    };
    this.#state = initialize(state, session);
    this.#caller = this.#sessionContext(session, featuresOf(session.protocolVersion), id, key, params, options);
    return this.#core.initializeResult(session.protocolVersion);
  }

  // The context of a request in a handshake-era session: what `initialize` negotiated, plus this request's own.
  #sessionContext(
    session: HandshakeSession,
    revision: RevisionFeatures,
    id: RequestId,
    key: string,
    params: Params,
    options: ReceiveOptions | undefined,
  ): RequestContextImpl {
    return new RequestContextImpl({
      requestId: id,
      key,
      revision,
      clientInfo: session.clientInfo,
      clientCapabilities: session.clientCapabilities,
      meta: metaOf(params),
      auth: this.#authOf(options),
      extra: this.#extraFor(options),
      port: this,
      tag: options?.tag,
      checkTool: options?.checkTool,
    });
  }

  #handshake(
    session: HandshakeSession,
    id: RequestId,
    key: string,
    method: string,
    params: Params,
    options: ReceiveOptions | undefined,
  ): MaybePromise<Reply> {
    const revision = featuresOf(session.protocolVersion);
    const handler = this.#method(method, revision);
    this.#capable(method, handler);
    const ctx = this.#sessionContext(session, revision, id, key, params, options);
    this.#caller = ctx;
    return this.#inFlight.run(handler, method, params, ctx, false);
  }

  #stateless(
    state: Fresh | Stateless,
    id: RequestId,
    key: string,
    method: string,
    params: Params,
    options: ReceiveOptions | undefined,
  ): MaybePromise<Reply> {
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
    const auth = this.#authOf(options);
    const make = (round: InputRound | undefined) =>
      new RequestContextImpl({
        requestId: id,
        key,
        revision,
        clientInfo: parsed.data[MetaKey.clientInfo] as Implementation | undefined,
        clientCapabilities: parsed.data[MetaKey.clientCapabilities],
        meta,
        auth,
        extra: this.#extraFor(options),
        port: this,
        inputs: round,
        tag: options?.tag,
        checkTool: options?.checkTool,
      });
    if (!handler.asks) return this.#inFlight.run(handler, method, params, make(undefined), false);
    // Only a retry has a state to open (asynchronously, to check its seal); a first call stays synchronous.
    if (params?.requestState === undefined && params?.inputResponses === undefined) {
      return this.#inFlight.run(handler, method, params, make(inputRound(undefined)), true);
    }
    return this.#inFlight.retry(handler, method, params, make(undefined), auth);
  }

  // A message's own caller is checked as the connection's was: refused (-32603, logged) without a subject.
  #authOf(options: ReceiveOptions | undefined): AuthInfo | undefined {
    const auth = options?.auth;
    return auth === undefined ? this.#auth : checkedAuth(auth);
  }

  #extraFor(options: ReceiveOptions | undefined): Record<string, unknown> | undefined {
    if (this.#extra === undefined && options?.extra === undefined) return undefined;
    return { ...this.#extra, ...options?.extra };
  }

  // ── Notifications from the client ──

  #notification(method: string, params: Params, line: string | undefined): void {
    const state = this.#state;
    if (method === "notifications/initialized") {
      if (state.kind === "handshaking") {
        this.#state = initialized(state);
        this.#attach();
      }
    } else if (method === "notifications/cancelled") {
      const parsed = schemas().cancelledParams.safeParse(params ?? {});
      if (!parsed.success) return;
      const { requestId } = parsed.data;
      // A number JSON.parse rounded names its request by the text it was written as.
      const text =
        typeof requestId === "number" && !Number.isSafeInteger(requestId)
          ? ((line === undefined ? undefined : rawParamsNumber(line, "requestId")) ?? String(requestId))
          : "";
      this.#inFlight.cancel(requestKey(requestId, text), parsed.data.reason ?? "cancelled by the client");
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
    if (this.#closed) return Promise.reject(new Error(`cannot send ${method}: the connection is closed`));
    return this.#outbound.request(method, params, options);
  }

  // ── Connection-scoped methods ──

  setLogLevel(level: LogLevel): void {
    this.#logLevel = level;
  }

  subscribe(uri: string, ctx: RequestContextImpl): void {
    this.#subscriptions.subscribe(uri, ctx);
  }

  unsubscribe(uri: string): void {
    this.#subscriptions.unsubscribe(uri);
  }

  listen(filter: ListenFilter, ctx: RequestContextImpl): Promise<Record<string, unknown>> {
    const stream = this.#subscriptions.listen(filter, ctx);
    this.#attach();
    return stream;
  }

  // ── What the server tells every connection ──

  listChanged(kind: ChangeKind, audience: Audience): void {
    this.#subscriptions.listChanged(kind, this.#state.kind === "operating" ? this.#caller : undefined, audience);
  }

  resourceUpdated(uri: string): void {
    this.#subscriptions.resourceUpdated(uri, this.#state.kind === "operating");
  }
}
