/**
 * `@toolsmith/core/engine`: what an engine author implements and a transport that keeps sessions in one reads: the
 * `Engine` interface and its nine roles, its records and signals, the errors it throws (`EngineUnavailable`, `LeaseLost`) and their
 * guards, what one session may keep (`SESSION_BOUNDS` and the helpers that cut to it), and the in-memory engine,
 * core's default. Every export is a promise: src/surface.test.ts pins the list.
 */

export {
  checkExpected,
  checkKeyValue,
  checkRecord,
  DEFAULT_RETRY_AFTER_SECONDS,
  type Engine,
  type EngineLifecycle,
  type EngineOwner,
  EngineUnavailable,
  type EventLog,
  type InitializedSession,
  isEngineUnavailable,
  isLeaseLost,
  KEY_VALUE_BOUNDS,
  type KeyValueStore,
  LeaseLost,
  type ListedRecord,
  RECORD_BOUNDS,
  type RecordStore,
  type RequestLeases,
  type RunningRequest,
  type ServerBus,
  type ServerSignal,
  type SessionChange,
  type SessionChannel,
  type SessionLimits,
  type SessionRecord,
  type SessionSignal,
  type SessionStore,
  STORE_KEY_CHARS,
  type StoredEvent,
  type StoredPrincipal,
  type StoredRecord,
  storeScopePrefix,
  type TaskChange,
  type TaskInputRequest,
  type TaskLimit,
  type TaskRecord,
  type TaskSignal,
  type TaskStatus,
  type TaskStore,
  type Unfollow,
} from "./engine/engine.js";
export { createMemoryEngine, type MemoryEngine, type MemoryEngineOptions } from "./engine/memory.js";
export {
  keptCapabilities,
  keptClientInfo,
  SESSION_BOUNDS,
  subscriptionUriRefusal,
  tooManySubscriptions,
} from "./engine/session-bounds.js";
