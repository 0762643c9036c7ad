import type { Era } from "../protocol/era.js";
import type { ProtocolVersion } from "../protocol/versions.js";
import type { InferInput, InputSchema } from "../schema/schema-adapter.js";
import { isPlainObject, type RequestId } from "../wire/json-rpc.js";
import type { MaybePromise } from "../wire/maybe.js";
import type { Implementation } from "../wire/types.js";
import type { ElicitForm, ElicitRawForm, ElicitResult, ElicitUrl, Root, SampleRequest, SampleResult } from "./ask.js";
import type { ClientLog } from "./client-log.js";
import type { ContextStore } from "./store-scopes.js";
import type { TraceContext } from "./trace.js";

// What a handler is given: the request context's contract, the era, and who is calling (request-context.ts makes it).

export type { Era } from "../protocol/era.js";

/**
 * Who is calling, as the transport authenticated them (the HTTP transport's `authenticate` hook). Sessions and
 * `requestState` are bound to `subject`: a principal without one is refused, never taken for another.
 */
export interface AuthInfo {
  /** A stable identifier of the caller (a user or client id): required, non-empty. */
  readonly subject: string;
  /** What the caller may do. */
  readonly scopes: readonly string[];
  /** Anything else the authenticator knows (claims, the raw token). */
  readonly [key: string]: unknown;
}

/** `auth` itself, when it names its caller; a TypeError otherwise (a principal without a subject binds to nothing). */
export function checkedAuth(auth: AuthInfo): AuthInfo {
  if (typeof auth.subject !== "string" || auth.subject.trim() === "") {
    throw new TypeError(
      "auth.subject must be a non-empty string: a principal without a subject cannot be told apart from another; fix the authenticator that made it",
    );
  }
  return auth;
}

/**
 * What a handler knows about the request it is serving, and what it can do while serving it; always the handler's
 * last parameter.
 * @example
 * ```ts source="examples/context.ts#RequestContext"
 * server.tool({
 *   name: "slow",
 *   description: "Waits",
 *   handler: async (_args, ctx) => {
 *     ctx.progress(1, 2);
 *     await wait(1000, ctx.signal);
 *   },
 * });
 * ```
 */
export interface RequestContext {
  /** The JSON-RPC id of this request. */
  readonly requestId: RequestId;
  /** The revision this request speaks: negotiated by `initialize`, or carried in `_meta`. */
  readonly protocolVersion: ProtocolVersion;
  readonly era: Era;
  /**
   * Who is calling, when the client said (always in the handshake era, its name, version and title as the session
   * keeps them: `SESSION_BOUNDS`; optional in 2026-07-28, as the request carried it).
   */
  readonly clientInfo: Implementation | undefined;
  /** What the client declared (in the handshake era, at most `SESSION_BOUNDS.capabilitiesBytes` of it, flags first). */
  readonly clientCapabilities: Readonly<Record<string, unknown>>;
  /** Aborted when the client cancels this request or the connection closes. */
  readonly signal: AbortSignal;
  /** The request's raw `params._meta`, if any. */
  readonly meta: Readonly<Record<string, unknown>> | undefined;
  /**
   * The client's W3C trace context from `_meta` (`traceparent`, `tracestate`, `baggage`), well-formed values only;
   * undefined when it sent none. A task's handler sees the trace of the tools/call that made it.
   */
  readonly trace: TraceContext | undefined;
  /** The authenticated caller; undefined on stdio (the HTTP transport fills it). */
  readonly auth: AuthInfo | undefined;
  /**
   * Who per-caller limits count this request against, in the one format every limit uses (`callerKey`): `subject <s>`
   * when authenticated, else `address <a>`, the client's network address (an IPv6 address as its /56); undefined when
   * neither is known (stdio, an in-memory test client without auth).
   */
  readonly caller: string | undefined;
  /** Room for transports and middleware to attach what they know about this request. */
  readonly extra: Record<string, unknown>;
  /**
   * Report progress, when the client asked for it (a `progressToken`); otherwise nothing is sent.
   * Each `done` must be greater than the last: a smaller or equal one throws.
   */
  progress(done: number, total?: number, message?: string): void;
  /**
   * Log to the client, at the level it asked for (`logging/setLevel`, or 2026-07-28 `_meta` logLevel):
   * `ctx.log.info("message", data?)` or `ctx.log.info(data, "message"?)`, under the tool's, resource's or prompt's name.
   */
  readonly log: ClientLog;
  /** Ask the user (elicitation). In 2026-07-28 this suspends the request as an `input_required` round. */
  elicit<S extends InputSchema>(request: ElicitForm<S>): Promise<ElicitResult<InferInput<S>>>;
  elicit(request: ElicitRawForm): Promise<ElicitResult<Record<string, unknown>>>;
  elicit(request: ElicitUrl): Promise<ElicitResult<undefined>>;
  /** Ask the client's model (sampling). */
  sample(request: SampleRequest): Promise<SampleResult>;
  /** The client's filesystem roots (`key`: its name in a 2026-07-28 `inputRequests` map; default `roots-1`, …). */
  roots(options?: { key?: string }): Promise<Root[]>;
  /**
   * The server's own data, kept by its engine (shared by every process with a shared engine): the whole server's
   * store, with `.user` (the authenticated caller's) and `.session` (the handshake-era session's) beside it.
   */
  readonly store: ContextStore;
  /** The task this call runs as (the tasks extension), or undefined when it is answered as a request. */
  readonly task: { readonly id: string } | undefined;
  /**
   * A tool with `task: { detach: "manual" }`: become a task now (its reply is the task; the rest runs in the
   * background). Does nothing for a request that cannot take a task, or one that is one already.
   */
  detach(options?: { statusMessage?: string }): Promise<void>;
}

/** What a task's handler runs: the tool (its middleware, arguments, handler) under the task's own context. */
export type TaskRun = (ctx: RequestContext) => MaybePromise<unknown>;

/**
 * The same context, its log under `name`: for one of several callbacks that serve one request side by side (each
 * template's `list` of a `resources/list`), so each one's messages carry its own name.
 */
export function withLogger(ctx: RequestContext, name: string): RequestContext {
  const log = ctx.log.named(name);
  return new Proxy(ctx, {
    get(target, key) {
      if (key === "log") return log;
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** `params._meta` when it is an object. */
export function metaOf(params: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  return isPlainObject(params?._meta) ? params._meta : undefined;
}
