import type { InputRound } from "../context/ask.js";
import { type AuthInfo, checkedAuth, metaOf } from "../context/context.js";
import type { ContextPort, ScopeSource } from "../context/context-init.js";
import { RequestContextImpl } from "../context/request-context.js";
import { grantOf, insufficientScope, NO_SCOPE } from "../context/scopes.js";
import { keptCapabilities, keptClientInfo } from "../engine/session-bounds.js";
import {
  type ConnectionState,
  eraOf,
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
import { check, InitializeParams, issuesText } from "../protocol/inbound.js";
import { featuresOf, type RevisionFeatures, STATELESS_REVISIONS } from "../protocol/revision.js";
import { MetaKey, negotiateHandshakeVersion, type ProtocolVersion } from "../protocol/versions.js";
import { unwrapCall } from "../registry/tool-search.js";
import { McpError } from "../wire/errors.js";
import { ErrorCode, type RequestId } from "../wire/json-rpc.js";
import type { MaybePromise } from "../wire/maybe.js";
import type { Implementation } from "../wire/types.js";
import { admittedMeta, firstRound, requestedVersion, serveRound, statelessRevision } from "./admission.js";
import type { ReceiveOptions } from "./connect-options.js";
import type { InFlight, Params, Reply } from "./in-flight.js";
import { checkCapable, methodOf } from "./methods.js";
import type { ServerCore } from "./server-core.js";

// Servers whose refusal of a caller without a principal was told, once each.
const WARNED = new WeakSet<object>();

/**
 * The era a connection speaks, as a typestate (protocol/era.ts), and each request routed by it: `initialize` opens
 * a handshake-era session, a request with `_meta` is admitted statelessly, anything else is refused.
 */
export class EraRouter {
  #state: ConnectionState = FRESH;
  // The handshake-era caller as its latest request (initialize at first) showed it: whom a list change may reach.
  #caller: RequestContextImpl | undefined;
  readonly #core: ServerCore;
  readonly #inFlight: InFlight;
  readonly #port: ContextPort;
  readonly #auth: AuthInfo | undefined;
  readonly #extra: Record<string, unknown> | undefined;
  readonly #scopes: ScopeSource;
  // The handshake-era session's id (`ctx.store.session`): the transport's, else one of its own once initialized.
  #sessionId: string | undefined;
  #ownSession = false;
  // False where the transport serves no handshake era (ConnectOptions.handshake): -32022 names no version of it.
  readonly #handshake: boolean;

  /**
   * `auth` and `extra`: what the transport knows of the whole connection, under each message's own; `scopes`: what
   * its callers hold.
   */
  constructor(
    core: ServerCore,
    inFlight: InFlight,
    port: ContextPort,
    auth: AuthInfo | undefined,
    extra: Record<string, unknown> | undefined,
    scopes: ScopeSource,
    sessionId?: string,
    handshake = true,
  ) {
    this.#handshake = handshake;
    this.#scopes = scopes;
    this.#sessionId = sessionId;
    this.#core = core;
    this.#inFlight = inFlight;
    this.#port = port;
    this.#auth = auth === undefined ? undefined : checkedAuth(auth);
    this.#extra = extra;
  }

  get phase(): Phase {
    return phaseOf(this.#state);
  }

  get negotiatedVersion(): ProtocolVersion | undefined {
    const state = this.#state;
    return state.kind === "initializing" || state.kind === "operating" ? state.session.protocolVersion : undefined;
  }

  /** Whether a JSON-RPC batch is taken: only in a 2025-03-26 session, so `initialize` in one is a second one. */
  get batches(): boolean {
    const version = this.negotiatedVersion;
    return version !== undefined && featuresOf(version).batches;
  }

  /** Whether the handshake era is in operation (initialized): its client is told of changes. */
  get operating(): boolean {
    return this.#state.kind === "operating";
  }

  /** Whom a handshake-era list change may reach: the caller, once in operation; undefined before or statelessly. */
  get listener(): RequestContextImpl | undefined {
    return this.#state.kind === "operating" ? this.#caller : undefined;
  }

  /** Whether `initialize` was answered and `notifications/initialized` has not come yet. */
  get initializing(): boolean {
    return this.#state.kind === "initializing";
  }

  /**
   * Start as a session `initialize` opened elsewhere (another connection, another process), initializing until
   * `initialized()`; the caller as the connection's own auth shows it (whom a list change or resource update may reach).
   */
  restore(session: HandshakeSession, id: string): void {
    this.#sessionId ??= id;
    this.#state = initialize(FRESH, session);
    this.#caller = this.#sessionContext(session, featuresOf(session.protocolVersion), 0, "n0", undefined, undefined);
  }

  /**
   * `notifications/initialized`, here or kept by another process: true when it took an initializing connection into
   * operation.
   */
  initialized(): boolean {
    const state = this.#state;
    if (state.kind !== "initializing") return false;
    this.#state = initialized(state);
    return true;
  }

  /** Serve a request in the era the connection (or, statelessly, the request) speaks; what it throws is its error. */
  route(
    id: RequestId,
    key: string,
    method: string,
    params: Params,
    options: ReceiveOptions | undefined,
  ): MaybePromise<Reply> {
    // The search surface's call tool is the call of the tool it names, for everything from here on.
    const search = this.#core.toolSearch;
    if (search !== undefined && method === "tools/call" && params !== undefined)
      params = unwrapCall(search.settings, params) ?? params;
    // The server's own scopes, before anything else: every request needs them, whatever it asks.
    const required = this.#core.router.required;
    if (required !== undefined) this.#demandServer(required, options);
    const state = this.#state;
    if (state.kind === "initializing" || state.kind === "operating") {
      if (method === "initialize") throw invalidRequest("this connection is already initialized");
      // Served in the session `initialize` negotiated.
      const { session } = state;
      const revision = featuresOf(session.protocolVersion);
      const handler = methodOf(method, revision);
      checkCapable(this.#core, method, handler);
      const ctx = this.#sessionContext(session, revision, id, key, params, options);
      this.#caller = ctx.callerOnly();
      return this.#inFlight.run(handler, method, params, ctx, false);
    }
    // Fresh or stateless: the era the door chose, else the request's own (`initialize` selects the handshake era, and
    // a stateless client may still fall back to it).
    const meta = params?._meta;
    const era = options?.era ?? eraOf(method, meta);
    if (era === "handshake" && method === "initialize") return this.#initialize(state, id, key, params, options);
    if (era !== "stateless" && state.kind === "fresh") {
      if (method === "ping") return {};
      throw new McpError(
        ErrorCode.InvalidParams,
        `Missing params._meta["${MetaKey.protocolVersion}"]: a ${STATELESS_REVISIONS} request must carry it, and a client of an earlier revision must send initialize first`,
      );
    }
    // Admitted on its own `_meta`; the era is locked only once that passed, so a refused client may still initialize.
    const requested = requestedVersion(meta);
    const revision = statelessRevision(requested);
    const handler = methodOf(method, revision);
    const admitted = admittedMeta(meta, requested, this.#handshake);
    this.#state = servedStateless(state);
    checkCapable(this.#core, method, handler);
    const ctx = this.#context(
      id,
      key,
      revision,
      admitted[MetaKey.clientInfo] as Implementation | undefined,
      admitted[MetaKey.clientCapabilities],
      meta as Record<string, unknown>,
      this.#authOf(options),
      options,
      firstRound(handler, params),
    );
    return serveRound(this.#inFlight, handler, method, params, ctx);
  }

  // A caller short of one of the server's own scopes is refused, naming them all.
  #demandServer(required: readonly string[], options: ReceiveOptions | undefined): void {
    const grant = grantOf(this.#authOf(options), this.#scopes.everyScope, this.#scopes.hierarchy());
    for (const scope of required) {
      if (grant.holds(scope)) continue;
      if (grant === NO_SCOPE && !WARNED.has(this.#core)) {
        WARNED.add(this.#core);
        this.#core.log({
          level: "warning",
          message: `the server needs the scopes ${required.join(" ")} for every request, and a caller without a principal holds none: every request is refused until the transport authenticates callers (transport-http: its authenticate option); said once`,
          method: "(scopes)",
        });
      }
      throw insufficientScope(required);
    }
  }

  #initialize(
    state: Fresh | Stateless,
    id: RequestId,
    key: string,
    params: Params,
    options: ReceiveOptions | undefined,
  ): Record<string, unknown> {
    const parsed = check(InitializeParams, params ?? {});
    if (!parsed.success) {
      throw new McpError(ErrorCode.InvalidParams, `Invalid initialize params: ${issuesText(parsed.error.issues)}`);
    }
    const { protocolVersion, capabilities, clientInfo } = parsed.data;
    // Kept for the session's life (and by its engine): bounded, whatever size the client declared them at.
    const session: HandshakeSession = {
      protocolVersion: negotiateHandshakeVersion(protocolVersion),
      clientInfo: keptClientInfo(clientInfo),
      clientCapabilities: keptCapabilities(capabilities),
    };
    this.#state = initialize(state, session);
    if (this.#sessionId === undefined) {
      this.#sessionId = crypto.randomUUID();
      this.#ownSession = true;
      this.#core.storeHub.openOwnSession(this.#sessionId);
    }
    const caller = this.#sessionContext(session, featuresOf(session.protocolVersion), id, key, params, options);
    this.#caller = caller.callerOnly();
    return this.#core.initializeResult(session.protocolVersion);
  }

  // A handshake-era request's context: what `initialize` negotiated, plus this request's own.
  #sessionContext(
    session: HandshakeSession,
    revision: RevisionFeatures,
    id: RequestId,
    key: string,
    params: Params,
    options: ReceiveOptions | undefined,
  ): RequestContextImpl {
    const { clientInfo, clientCapabilities } = session;
    return this.#context(
      id,
      key,
      revision,
      clientInfo,
      clientCapabilities,
      metaOf(params),
      this.#authOf(options),
      options,
      undefined,
      this.#sessionId,
    );
  }

  /** The handshake-era session's id, once there is one. */
  get sessionId(): string | undefined {
    return this.#sessionId;
  }

  /** The session this connection made its own id for (stdio, the test client): it ends with the connection. */
  get ownSession(): string | undefined {
    return this.#ownSession ? this.#sessionId : undefined;
  }

  #context(
    id: RequestId,
    key: string,
    revision: RevisionFeatures,
    clientInfo: Implementation | undefined,
    clientCapabilities: Readonly<Record<string, unknown>>,
    meta: Readonly<Record<string, unknown>> | undefined,
    auth: AuthInfo | undefined,
    options: ReceiveOptions | undefined,
    inputs?: InputRound,
    session?: string,
  ): RequestContextImpl {
    return new RequestContextImpl({
      requestId: id,
      key,
      revision,
      clientInfo,
      clientCapabilities,
      meta,
      auth,
      address: options?.address,
      extra: this.#extraFor(options),
      port: this.#port,
      inputs,
      tag: options?.tag,
      tasks: this.#core.tasks,
      checkTool: options?.checkTool,
      scopes: this.#scopes,
      store: this.#core.storeHub,
      session,
    });
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
}

function invalidRequest(message: string): McpError {
  return new McpError(ErrorCode.InvalidRequest, `Invalid request: ${message}`);
}
