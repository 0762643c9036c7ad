import type { ContextPort } from "../context/context-init.js";
import type { RequestContextImpl } from "../context/request-context.js";
import type { SessionChange, SessionRecord } from "../engine/engine.js";
import { subscriptionUriRefusal } from "../engine/session-bounds.js";
import type { Phase } from "../protocol/era.js";
import { schemas } from "../protocol/inbound.js";
import type { LogLevel } from "../protocol/log-levels.js";
import { isHandshakeVersion, type ProtocolVersion } from "../protocol/versions.js";
import type { Audience, ChangeKind } from "../registry/router.js";
import type { RequestId } from "../wire/json-rpc.js";
import { isPromiseLike, type MaybePromise } from "../wire/maybe.js";
import { rawParamsNumber, requestKey } from "../wire/raw-id.js";
import type { ConnectOptions, ReceiveOptions } from "./connect-options.js";
import { EraRouter } from "./era-routing.js";
import { ErrorBoundary } from "./error-boundary.js";
import { InFlight, type Params } from "./in-flight.js";
import type { ConnectionControl, ListenFilter } from "./methods.js";
import { OutboundRequests } from "./outbound-requests.js";
import { Outlet } from "./outlet.js";
import { Receiver } from "./receive.js";
import type { ConnectionListener, ServerCore } from "./server-core.js";
import { Subscriptions } from "./subscriptions.js";

/**
 * One connection: messages in through `receive`, everything out through the transport's `send`: replies,
 * notifications, and the server's own requests to the client, whose answers come back through `receive` too.
 * Transports create one per connection with `server.connect({ send })`. It wires the parts: a line is received
 * (receive.ts), a request served within the error boundary (error-boundary.ts) in the era its connection or its
 * `_meta` speaks (era-routing.ts, admission.ts), in flight until answered (in-flight.ts).
 */
export class Connection implements ContextPort, ConnectionControl, ConnectionListener {
  readonly #core: ServerCore;
  readonly #out: Outlet;
  readonly #onInternalError: ConnectOptions["onInternalError"];
  readonly #inFlight: InFlight;
  readonly #outbound: OutboundRequests;
  // Made on first use: most connections (HTTP makes one per 2026-07-28 request) never subscribe, listen or attach.
  #subscriptions: Subscriptions | undefined;
  readonly #eras: EraRouter;
  readonly #receiver: Receiver;
  readonly #onSessionChange: ConnectOptions["onSessionChange"];
  readonly #hearsChanges: boolean;
  #logLevel: LogLevel | undefined;
  #attached = false;
  #closed = false;

  constructor(core: ServerCore, options: ConnectOptions) {
    this.#core = core;
    this.#out = new Outlet(core, options.send);
    this.#inFlight = new InFlight(core, { core, connection: this, handshake: options.handshake !== false });
    this.#outbound = new OutboundRequests(core, this.#out, options.outboundIds);
    this.#onInternalError = options.onInternalError;
    this.#onSessionChange = options.onSessionChange;
    this.#hearsChanges = options.hearsChanges !== false;
    this.#eras = new EraRouter(
      core,
      this.#inFlight,
      this,
      options.auth,
      options.extra,
      core.scopeSource(options.holdsEveryScope === true),
      options.sessionId ?? options.session?.id,
      options.handshake !== false,
    );
    const boundary = new ErrorBoundary(core, this.#out, this.#eras, options.onInternalError);
    // Made once per connection: what the client notifies is the connection's to act on.
    this.#receiver = new Receiver(this.#out, this.#outbound, this.#eras, boundary, (method, params, line) =>
      this.#notification(method, params, line),
    );
    if (options.session) this.#restore(options.session);
  }

  // A session kept by the engine, perhaps opened on another process: this connection carries on as it.
  #restore(record: SessionRecord): void {
    const { version, clientInfo, clientCapabilities } = record;
    if (!isHandshakeVersion(version)) {
      throw new TypeError(
        `session ${record.id} speaks ${version}, not a handshake-era revision: it cannot be restored`,
      );
    }
    this.#eras.restore({ protocolVersion: version, clientInfo, clientCapabilities }, record.id);
    this.sessionKept(record);
  }

  // A session change is told first (so a later request on another process sees it), then applied here.
  #tell(change: SessionChange, apply: () => void): MaybePromise<void> {
    const told = this.#onSessionChange?.(change);
    if (!isPromiseLike<void>(told)) {
      apply();
      return;
    }
    return Promise.resolve(told).then(apply);
  }

  /** `handshake` until the handshake era's `notifications/initialized` or the first stateless request. */
  get phase(): Phase {
    return this.#eras.phase;
  }

  /** The revision `initialize` negotiated; undefined in the stateless era, where each request names its own. */
  get negotiatedVersion(): ProtocolVersion | undefined {
    return this.#eras.negotiatedVersion;
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
    return this.#receiver.receive(line, options);
  }

  /** Abort every request in flight, fail the server's unanswered requests, and stop hearing about list changes. */
  close(reason?: unknown): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#attached) this.#core.detach(this);
    this.#subscriptions?.close();
    // A session of the connection's own ends with it, and its store with it (when it has one).
    const own = this.#eras.ownSession;
    if (own !== undefined) this.#core.storeHub.clearSession(own);
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
    this.#subscriptions?.endAll();
  }

  notify(method: string, params: Record<string, unknown>, relatedTo: RequestId | undefined, tag?: unknown): void {
    this.#out.notify(method, params, relatedTo, tag);
  }

  crashed(error: unknown, requestId: RequestId): void {
    this.#onInternalError?.(error, requestId);
  }

  // ── Notifications from the client ──

  #notification(method: string, params: Params, line: string | undefined): MaybePromise<void> {
    if (method === "notifications/initialized") {
      if (!this.#eras.initializing) return;
      // In operation, the client hears of list changes.
      const operate = () => {
        if (this.#eras.initialized()) this.#attach();
      };
      let told: MaybePromise<void>;
      try {
        told = this.#tell({ kind: "initialized" }, operate);
      } catch (error) {
        told = Promise.reject(error);
      }
      if (!isPromiseLike<void>(told)) return;
      // No reply carries the failure: it is logged, and `receive` rejects with it (a transport may answer 503).
      return Promise.resolve(told).then(undefined, (error: unknown) => {
        const message = `notifications/initialized could not be kept: ${String(error)}`;
        this.#core.log({ level: "error", message, error, method });
        throw error;
      });
    }
    if (method === "notifications/cancelled") {
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
    if (this.#attached || this.#closed || !this.#hearsChanges) return;
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

  #subs(): Subscriptions {
    this.#subscriptions ??= new Subscriptions(this.#core, this.#out);
    return this.#subscriptions;
  }

  /**
   * A kept session as the engine holds it now (another process may have served its `notifications/initialized` or
   * `logging/setLevel`): its log level, and its being in operation, applied here without telling the engine again.
   */
  sessionKept(record: SessionRecord): void {
    this.#logLevel = record.logLevel;
    // Initialized never goes back: an older record leaves an operating connection as it is.
    if (record.initialized && this.#eras.initialized()) this.#attach();
  }

  setLogLevel(level: LogLevel): MaybePromise<void> {
    return this.#tell({ kind: "logLevel", level }, () => {
      this.#logLevel = level;
    });
  }

  subscribe(uri: string, ctx: RequestContextImpl): MaybePromise<void> {
    const refused = subscriptionUriRefusal(uri);
    if (refused) throw refused;
    // A connection that hears no changes never tells an update: its session's engine alone keeps (and bounds) them.
    // Kept while subscribed: who asked (for the reads it may make), never the request itself.
    const caller = ctx.callerOnly();
    const subscriptions = this.#subs();
    // Its resource's watch is still held here, while this connection of the session lasts.
    if (!this.#hearsChanges) return this.#tell({ kind: "subscribe", uri }, () => subscriptions.watch(uri, caller));
    subscriptions.admit(uri);
    return this.#tell({ kind: "subscribe", uri }, () => subscriptions.subscribe(uri, caller));
  }

  unsubscribe(uri: string): MaybePromise<void> {
    if (!this.#hearsChanges) return this.#tell({ kind: "unsubscribe", uri }, () => this.#subs().unwatch(uri));
    return this.#tell({ kind: "unsubscribe", uri }, () => this.#subs().unsubscribe(uri));
  }

  listen(filter: ListenFilter, ctx: RequestContextImpl): Promise<Record<string, unknown>> {
    const stream = this.#subs().listen(filter, ctx);
    this.#attach();
    return stream;
  }

  // ── What the server tells every connection ──

  listChanged(kind: ChangeKind, audience: Audience): void {
    this.#subs().listChanged(kind, this.#eras.listener, audience);
  }

  resourceUpdated(uri: string): void {
    this.#subs().resourceUpdated(uri, this.#eras.operating);
  }
}
