import type { ScopeSource } from "../context/context-init.js";
import type { KeepHost } from "../context/keep.js";
import type { LogEntry } from "../context/logger.js";
import type { RequestContextImpl, TaskHost } from "../context/request-context.js";
import type { StoreHub } from "../context/store-hub.js";
import type { Middleware } from "../middleware/compose.js";
import type { CacheHint, CacheKind, StampedResult } from "../protocol/cache-hints.js";
import type { ProtocolVersion } from "../protocol/versions.js";
import type { Audience, ChangeKind, Router } from "../registry/router.js";
import type { ToolSearch } from "../registry/tool-search.js";
import type { MaybePromise } from "../wire/maybe.js";
import type { Sealer } from "../wire/seal.js";
import type { Implementation } from "../wire/types.js";
import type { ResourceWatches } from "./resource-watches.js";

/** What a connection is told by its server: list changes and resource updates, to pass on to its client. */
export interface ConnectionListener {
  /** `audience`: who may hear of it (undefined: everyone; else a caller one of the guards allows). */
  listChanged(kind: ChangeKind, audience: Audience): void;
  resourceUpdated(uri: string): void;
}

/**
 * The server's tasks as the connection's methods reach them: the runner, and `tasks/*` (get and cancel in either
 * generation, by the request's revision; update the extension's; result and list 2025-11-25's).
 */
export interface TaskService extends TaskHost {
  get(params: Record<string, unknown> | undefined, ctx: RequestContextImpl): MaybePromise<Record<string, unknown>>;
  update(params: Record<string, unknown> | undefined, ctx: RequestContextImpl): MaybePromise<Record<string, unknown>>;
  cancel(params: Record<string, unknown> | undefined, ctx: RequestContextImpl): MaybePromise<Record<string, unknown>>;
  result(params: Record<string, unknown> | undefined, ctx: RequestContextImpl): Promise<Record<string, unknown>>;
  list(params: Record<string, unknown> | undefined, ctx: RequestContextImpl): MaybePromise<Record<string, unknown>>;
  /** A listen's `taskIds`: follow those that exist and are the caller's (-32021 without the extension). */
  watch(taskIds: readonly string[], ctx: RequestContextImpl): Promise<TaskWatching>;
}

/** The tasks one listen stream follows. */
export interface TaskWatching {
  /** The ids acknowledged (the caller's, existing), in the order asked. */
  readonly taskIds: readonly string[];
  /** Tell each change as `notifications/tasks` params (the DetailedTask) from now on. */
  start(send: (task: Record<string, unknown>) => void): void;
  /** The stream ended: follow nothing more. */
  stop(): void;
}

/** What a Connection needs from its server: shared by every connection, built once. */
export interface ServerCore extends KeepHost {
  readonly router: Router;
  /** What runs around every operation (`server.use`), outermost first. */
  readonly middleware: readonly Middleware[];
  readonly sealer: Sealer;
  /** How long a 2026-07-28 `requestState` stays valid. */
  readonly requestStateTtlMs: number;
  /** How long a handshake-era request to the client may go unanswered. */
  readonly clientRequestTimeoutMs: number;
  /** Its tasks (the tasks extension). */
  readonly tasks: TaskService;
  /** The URIs its clients are subscribed to here, counted: a resource's `watch` runs while any is. */
  readonly watches: ResourceWatches;
  /** Its store (`ctx.store`). */
  readonly storeHub: StoreHub;
  /** Its search surface (`createServer({ toolSearch })`), if it lists one instead of every tool. */
  readonly toolSearch: ToolSearch | undefined;
  serverInfo(version: ProtocolVersion): Implementation;
  /** `handshake`: whether the transport serves the handshake era, whose versions are then listed too. */
  discoverResult(handshake: boolean): Record<string, unknown>;
  initializeResult(version: ProtocolVersion): Record<string, unknown>;
  /**
   * Stamp a 2026-07-28 result: `resultType`, caching hint (its own, else `fallback`, else the server's of kind
   * `cache`), server info; a result needing only `resultType` and server info comes back as a `StampedResult`.
   */
  stamp(
    result: Record<string, unknown>,
    cache: CacheKind | undefined,
    perCaller?: boolean,
    fallback?: CacheHint,
  ): Record<string, unknown> | StampedResult;
  /** One page of a list, with `nextCursor` when more follow. */
  page(key: string, items: unknown[], cursor: string | undefined): MaybePromise<Record<string, unknown>>;
  log(entry: LogEntry): void;
  /** What its requests' callers hold: `everyScope` for a connection whose transport vouches for the local user. */
  scopeSource(everyScope: boolean): ScopeSource;
  attach(listener: ConnectionListener): void;
  detach(listener: ConnectionListener): void;
}
