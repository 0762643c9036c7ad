import type { RequestedTask } from "../protocol/core-tasks.js";
import type { LogLevel } from "../protocol/log-levels.js";
import type { RevisionFeatures } from "../protocol/revision.js";
import type { TaskPolicy } from "../protocol/tasks.js";
import type { RequestId } from "../wire/json-rpc.js";
import type { Implementation, Tool } from "../wire/types.js";
import type { AskPort, InputRound } from "./ask.js";
import type { AuthInfo, TaskRun } from "./context.js";
import type { ScopeHierarchy } from "./scopes.js";
import type { StoreHub } from "./store-hub.js";

// What a request's context is made from: the connection it answers through, the server's task runner and scopes,
// and the request itself (request-context.ts makes the context from it).

/** The server's task runner as a request sees it: where a tools/call becomes a task (`C`: the request's context). */
export interface TaskHostOf<C> {
  /**
   * Make the task (durable before this resolves), run `run` under it in the background: the CreateTaskResult.
   * `requested`: a handshake-era request's `params.task` (the task is that generation's).
   */
  start(
    ctx: C,
    tool: string,
    policy: TaskPolicy,
    run: TaskRun,
    requested?: RequestedTask,
  ): Promise<Record<string, unknown>>;
  /** Whether the server declares tasks (a tool here or in a module may run as one). */
  tasking(): boolean;
}

/** What a context needs from its connection. */
export interface ContextPort extends AskPort {
  notify(method: string, params: Record<string, unknown>, relatedTo: RequestId | undefined, tag?: unknown): void;
  /** The handshake era's `logging/setLevel` level; undefined when the client set none. */
  readonly logLevel: LogLevel | undefined;
  /** Hears what crashed while serving a request but was answered as a refusal (a guard that threw). */
  crashed?(error: unknown, requestId: RequestId): void;
}

/** Where a context learns what its caller holds: its connection's word and its server's hierarchy of scopes. */
export interface ScopeSource {
  /** A request without a principal holds every scope (`ConnectOptions.holdsEveryScope`). */
  readonly everyScope: boolean;
  /** The server's implied scopes, its modules' included. */
  hierarchy(): ScopeHierarchy;
}

/** Everything a context is made from (`C`: the context, which its task host is given). */
export interface ContextInitOf<C> {
  requestId: RequestId;
  /** The request's key in flight (`requestKey`): its id exactly as written, when JSON.parse rounded it. */
  key: string;
  revision: RevisionFeatures;
  clientInfo: Implementation | undefined;
  clientCapabilities: Readonly<Record<string, unknown>>;
  meta: Readonly<Record<string, unknown>> | undefined;
  auth: AuthInfo | undefined;
  /** The peer's address, asked only for a per-caller limit (see `ReceiveOptions.address`). */
  address?: (() => string | undefined) | undefined;
  extra: Record<string, unknown> | undefined;
  port: ContextPort;
  /** 2026-07-28: the answers this request's retry brought, for a method that may ask. */
  inputs?: InputRound | undefined;
  /** The transport's tag of the message that brought this request, carried on every line it causes. */
  tag?: unknown;
  /** The transport's own check of a tools/call against the tool it reaches (see `ReceiveOptions.checkTool`). */
  checkTool?: ((tool: Tool) => void) | undefined;
  /** The server's task runner, where a tools/call may become a task. */
  tasks?: TaskHostOf<C> | undefined;
  /** What the caller holds is read from here (without it: its principal's own scopes, none without one). */
  scopes?: ScopeSource | undefined;
  /** The server's store (`ctx.store`). */
  store?: StoreHub | undefined;
  /** The handshake-era session this request is served in (its id keys `ctx.store.session`). */
  session?: string | undefined;
}
