import type { CacheHint } from "../protocol/cache-hints.js";
import type { RevisionFeatures } from "../protocol/revision.js";
import type { ProtocolVersion } from "../protocol/versions.js";
import type { RequestId } from "../wire/json-rpc.js";
import type { MaybePromise } from "../wire/maybe.js";
import type { Implementation, Tool } from "../wire/types.js";
import {
  ask,
  type ElicitForm,
  type ElicitRawForm,
  type ElicitResult,
  type ElicitUrl,
  type InputRound,
  type Root,
  type SampleRequest,
  type SampleResult,
} from "./ask.js";
import { callerKey } from "./caller.js";
import { type ClientLog, clientLog } from "./client-log.js";
import type { AuthInfo, Era, RequestContext } from "./context.js";
import type { ContextInitOf, ContextPort, ScopeSource, TaskHostOf } from "./context-init.js";
import { type Keeper, keeperOf } from "./keep.js";
import { nextProgress } from "./progress.js";
import { type Telling, tellLog, tellProgress } from "./request-telling.js";
import { type Grant, grantOf, ScopeHierarchy } from "./scopes.js";
import type { StoreHub } from "./store-hub.js";
import { type ContextStore, contextStore } from "./store-scopes.js";
import { type TraceContext, traceOf } from "./trace.js";

// The context the connection makes for each request (context.ts says what a handler sees of it): made cheap, its
// parts built when first asked for, and once its tool detaches, a front for the task's own context.

/** The server's task runner as a request sees it: where a tools/call becomes a task. */
export type TaskHost = TaskHostOf<RequestContextImpl>;

/** Everything a context is made from. */
export type ContextInit = ContextInitOf<RequestContextImpl>;

const NO_SOURCE: ScopeSource = { everyScope: false, hierarchy: () => new ScopeHierarchy() };

/** A request's context; its AbortController and log object are made only when a handler asks for them. */
export class RequestContextImpl implements RequestContext {
  readonly requestId: RequestId;
  readonly key: string;
  readonly revision: RevisionFeatures;
  readonly clientInfo: Implementation | undefined;
  readonly clientCapabilities: Readonly<Record<string, unknown>>;
  readonly meta: Readonly<Record<string, unknown>> | undefined;
  readonly auth: AuthInfo | undefined;
  /** 2026-07-28: set once a retry's state has been opened. */
  inputs: InputRound | undefined;
  readonly tag: unknown;
  /** The default `logger` of this request's log messages: the name of the tool, resource or prompt it serves. */
  logger: string | undefined;
  /** 2026-07-28: the caching hint of this request's result, unless its own says otherwise, when not the server's. */
  cacheHint: CacheHint | undefined;
  readonly checkTool: ((tool: Tool) => void) | undefined;
  readonly tasks: TaskHost | undefined;
  /** Set while a `detach: "manual"` tool runs: what `detach()` does. */
  detacher: ((options: { statusMessage?: string } | undefined) => Promise<void>) | undefined;
  #task: { readonly id: string } | undefined;
  readonly #scopes: ScopeSource;
  #grant: Grant | undefined;
  // Once detached: the task's context, which serves what the handler does from then on.
  #delegate: RequestContext | undefined;
  readonly #port: ContextPort;
  readonly #address: (() => string | undefined) | undefined;
  #extra: Record<string, unknown> | undefined;
  #controller: AbortController | undefined;
  #log: ClientLog | undefined;
  #abortReason: unknown;
  #aborted = false;
  #cancelled = false;
  #done = false;
  #lastProgress = Number.NEGATIVE_INFINITY;
  #afterAnswer: (() => void)[] | undefined;
  /** What `ctx.keep` holds in a request without rounds (the handshake era, a method that cannot ask). */
  keeper: Keeper | undefined;
  // Read from `meta` on first use only: a handler or middleware that never asks costs nothing.
  #trace: TraceContext | undefined | null = null;
  readonly #hub: StoreHub | undefined;
  readonly #session: string | undefined;
  #store: ContextStore | undefined;

  constructor(init: ContextInit) {
    this.requestId = init.requestId;
    this.key = init.key;
    this.revision = init.revision;
    this.clientInfo = init.clientInfo;
    this.clientCapabilities = init.clientCapabilities;
    this.meta = init.meta;
    this.auth = init.auth;
    this.inputs = init.inputs;
    this.tag = init.tag;
    this.checkTool = init.checkTool;
    this.tasks = init.tasks;
    this.#port = init.port;
    this.#address = init.address;
    this.#extra = init.extra;
    this.#scopes = init.scopes ?? NO_SOURCE;
    this.#hub = init.store;
    this.#session = init.session;
  }

  /** Made on first use: a handler that never asks costs nothing. */
  get store(): ContextStore {
    if (this.#store !== undefined) return this.#store;
    if (this.#hub === undefined) throw new Error("this request was served without a server store");
    this.#store = contextStore(this.#hub, this.auth?.subject, this.#session, this.era);
    return this.#store;
  }

  /** The scopes this request's caller holds: worked out on first use (a request needing none never asks). */
  get grant(): Grant {
    this.#grant ??= grantOf(this.auth, this.#scopes.everyScope, this.#scopes.hierarchy());
    return this.#grant;
  }

  /**
   * Who asked, without what: kept by a connection to tell its caller of changes later. Never the request's `_meta`,
   * transport tag or answers, which would keep its whole body (up to the body limit) for the session's life.
   */
  callerOnly(): RequestContextImpl {
    return new RequestContextImpl({
      requestId: this.requestId,
      key: this.key,
      revision: this.revision,
      clientInfo: this.clientInfo,
      clientCapabilities: this.clientCapabilities,
      meta: undefined,
      auth: this.auth,
      address: this.#address,
      extra: this.#extra,
      port: this.#port,
      checkTool: this.checkTool,
      tasks: this.tasks,
      scopes: this.#scopes,
      store: this.#hub,
      session: this.#session,
    });
  }

  /** The handshake-era session this request is served in (its id, else its connection's own); undefined in 2026. */
  get session(): string | undefined {
    return this.#session;
  }

  /**
   * Handshake era: a request of the server's own to this request's client, as this request's (its stream while it
   * is open, else the session's), until `signal` withdraws it (the client is told).
   */
  requestClient(
    method: string,
    params: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<Record<string, unknown>> {
    return this.#port.request(method, params, { relatedTo: this.requestId, tag: this.tag, signal });
  }

  /** Handshake era: a notification to this request's client that belongs to no request (the session's stream). */
  notifyClient(method: string, params: Record<string, unknown>): void {
    this.#port.notify(method, params, undefined);
  }

  /** Who per-caller limits count this request against: its subject, else its address (`callerKey`). */
  get caller(): string | undefined {
    return callerKey(this.auth?.subject, this.#address);
  }

  get protocolVersion(): ProtocolVersion {
    return this.revision.version;
  }

  get task(): { readonly id: string } | undefined {
    return this.#task;
  }

  get trace(): TraceContext | undefined {
    if (this.#trace === null) this.#trace = traceOf(this.meta);
    return this.#trace;
  }

  detach(options?: { statusMessage?: string }): Promise<void> {
    return this.detacher === undefined || this.#task !== undefined ? Promise.resolve() : this.detacher(options);
  }

  /** Detached: from now on the task's context serves this handler (its signal, questions, progress and log). */
  adopt(task: RequestContext): void {
    this.#task = task.task;
    this.#delegate = task;
    // A signal the handler took before detaching follows the task's, no longer the request's.
    task.signal.addEventListener("abort", () => this.#controller?.abort(task.signal.reason), { once: true });
  }

  get era(): Era {
    return this.revision.era;
  }

  get extra(): Record<string, unknown> {
    this.#extra ??= {};
    return this.#extra;
  }

  get signal(): AbortSignal {
    if (this.#delegate !== undefined && !this.#controller) return this.#delegate.signal;
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
    // A detached handler outlives its request: only its task stops it.
    if (this.#aborted || this.#delegate !== undefined) return;
    this.#aborted = true;
    this.#abortReason = reason;
    this.#controller?.abort(reason);
  }

  /** Something crashed while serving this request and was answered as a refusal: the connection hears of it. */
  crashed(error: unknown): void {
    this.#port.crashed?.(error, this.requestId);
  }

  /** The request has been answered: progress and request-scoped logs stop. */
  finish(): void {
    this.#done = true;
    const waiting = this.#afterAnswer;
    this.#afterAnswer = undefined;
    if (waiting !== undefined) for (const run of waiting) run();
  }

  /** Run `run` once the request has been answered (at once if it has): its reply is on its way. */
  afterAnswer(run: () => void): void {
    if (this.#done) {
      run();
      return;
    }
    this.#afterAnswer ??= [];
    this.#afterAnswer.push(run);
  }

  progress(done: number, total?: number, message?: string): void {
    this.#lastProgress = nextProgress(done, this.#lastProgress);
    if (this.#delegate !== undefined) {
      this.#delegate.progress(done, total, message);
      return;
    }
    tellProgress(this.#telling(), done, total, message);
  }

  get log(): ClientLog {
    if (this.#delegate !== undefined) return this.#delegate.log;
    this.#log ??= clientLog(
      (level, first, second, logger) => tellLog(this.#telling(), level, first, second, logger),
      undefined,
      () => this.logger,
    );
    return this.#log;
  }

  // What telling the client needs of this request, made when something is told (rarely: most requests tell nothing).
  #telling(): Telling {
    const { requestId, tag, revision, meta, inputs } = this;
    return { requestId, tag, revision, meta, inputs, port: this.#port, done: this.#done };
  }

  elicit(request: ElicitForm | ElicitRawForm | ElicitUrl): Promise<ElicitResult<never>> {
    if (this.#delegate !== undefined)
      return this.#delegate.elicit(request as ElicitRawForm) as Promise<ElicitResult<never>>;
    return ask.elicit(this, this.#port, request) as Promise<ElicitResult<never>>;
  }

  sample(request: SampleRequest): Promise<SampleResult> {
    if (this.#delegate !== undefined) return this.#delegate.sample(request);
    return ask.sample(this, this.#port, request);
  }

  roots(options?: { key?: string }): Promise<Root[]> {
    if (this.#delegate !== undefined) return this.#delegate.roots(options);
    return ask.roots(this, this.#port, options?.key);
  }

  keep<T>(name: string, compute: () => MaybePromise<T>): Promise<T> {
    if (this.#delegate !== undefined) return this.#delegate.keep(name, compute);
    return keeperOf(this.inputs ?? this).keep(name, compute);
  }
}

/** Name a request's log messages after what serves it, unless something already has. */
export function nameLogger(ctx: RequestContext, name: string): void {
  if (ctx instanceof RequestContextImpl) ctx.logger ??= name;
}

/** What a mounted module serves carries `hint` unless its own says otherwise (see RequestContextImpl.cacheHint). */
export function setCacheHint(ctx: RequestContext, hint: CacheHint): void {
  if (ctx instanceof RequestContextImpl) ctx.cacheHint = hint;
}
