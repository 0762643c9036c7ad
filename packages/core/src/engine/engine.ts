import type { EventLog } from "./event-log.js";
import type { KeyValueStore } from "./key-value-store.js";
import type { EngineLifecycle } from "./lifecycle.js";
import type { RecordStore } from "./record-store.js";
import type { RequestLeases } from "./request-leases.js";
import type { ServerBus } from "./server-bus.js";
import type { SessionChannel } from "./session-channel.js";
import type { SessionStore } from "./session-store.js";
import type { TaskStore } from "./task-store.js";

// The engine: the state that must outlive one process, as roles a consumer names one by one (a transport's session
// code needs the session roles, the task runner the task store, the engine link the bus). The in-memory engine (the
// default) answers synchronously, so a server without a configured engine makes no promise for it; a shared one
// (@toolsmith/redis) answers later. docs/writing-an-engine.md is the guide for a third.

export {
  DEFAULT_RETRY_AFTER_SECONDS,
  EngineUnavailable,
  isEngineUnavailable,
  isLeaseLost,
  LeaseLost,
} from "./engine-errors.js";
export type { EventLog, StoredEvent } from "./event-log.js";
export { checkKeyValue, checkText, KEY_VALUE_BOUNDS, type KeyValueStore } from "./key-value-store.js";
export type { EngineLifecycle, EngineOwner, Unfollow } from "./lifecycle.js";
export {
  checkExpected,
  checkRecord,
  type ListedRecord,
  RECORD_BOUNDS,
  type RecordStore,
  type RecordSwapOptions,
  type RecordWriteOptions,
  STORE_KEY_CHARS,
  type StoredRecord,
  sessionEnded,
  storeScopePrefix,
} from "./record-store.js";
export type { RequestLeases, RunningRequest } from "./request-leases.js";
export type { ServerBus, ServerSignal } from "./server-bus.js";
export type { SessionChannel, SessionSignal } from "./session-channel.js";
export type {
  InitializedSession,
  SessionChange,
  SessionLimits,
  SessionRecord,
  SessionStore,
  StoredPrincipal,
} from "./session-store.js";
export type {
  TaskChange,
  TaskInputRequest,
  TaskLimit,
  TaskRecord,
  TaskSignal,
  TaskStatus,
  TaskStore,
} from "./task-store.js";

/**
 * An engine that plays every role: the state that must outlive one process (sessions, their events, their channels,
 * leases on running requests, the bus between processes, tasks, short-lived values, the server's own records). One engine per server process;
 * `start` before use, `close` when done. Processes of one server share a `namespace`. What `createServer({ engine })` takes; a consumer
 * inside Toolsmith names only the roles it uses.
 */
export interface Engine
  extends EngineLifecycle,
    SessionStore,
    EventLog,
    SessionChannel,
    RequestLeases,
    ServerBus,
    TaskStore,
    KeyValueStore,
    RecordStore {}
