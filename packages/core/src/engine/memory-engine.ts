import type { Engine } from "./engine.js";
import type { StoredEvent } from "./event-log.js";
import type { ListedRecord, RecordStore, RecordSwapOptions, RecordWriteOptions, StoredRecord } from "./record-store.js";
import type { RunningRequest } from "./request-leases.js";
import type { ServerSignal } from "./server-bus.js";
import type { SessionSignal } from "./session-channel.js";
import type { InitializedSession, SessionChange, SessionLimits, SessionRecord } from "./session-store.js";
import type { TaskChange, TaskLimit, TaskRecord, TaskSignal } from "./task-store.js";

// What `createMemoryEngine` takes and gives: every member as the memory engine has it (synchronous throughout).

/** Options of `createMemoryEngine`. */
export interface MemoryEngineOptions {
  /** Events kept per session for resumption (default 512): older ones are dropped, oldest first. */
  readonly eventsPerSession?: number;
  /** The clock, in milliseconds (default `Date.now`): what idle expiry and the expiry of values read. */
  readonly now?: () => number;
  /** Live values kept at most (default 100 000), and as many counters apart: one more throws `EngineUnavailable`. */
  readonly maxValues?: number;
  /** Live records kept at most (default `RECORD_BOUNDS.maxRecords`): one more throws `EngineUnavailable`. */
  readonly maxRecords?: number;
}

export type HandleOp = Extract<ServerSignal, { type: "handle" }>;

/** The in-memory engine: the `Engine` of one process, every method answering at once (no promise is ever made). */
export interface MemoryEngine extends Engine, RecordStore {
  // EngineLifecycle
  readonly shared: false;
  start(server: { readonly name: string }): void;
  close(): void;
  onResume(listener: () => void): () => void;
  // SessionStore
  createSession(record: SessionRecord, limits: SessionLimits): "created" | "full" | "full-for-caller";
  loadSession(id: string): SessionRecord | undefined;
  changeSession(id: string, change: SessionChange): void;
  deleteSession(id: string): boolean;
  initializedSessions(uri?: string): readonly InitializedSession[];
  /** @deprecated `initializedSessions(uri)`; goes in the next minor release. */
  subscribers(uri: string): readonly string[];
  /** @deprecated `initializedSessions()`; goes in the next minor release. */
  sessionIds(): readonly string[];
  // EventLog
  append(session: string, stream: string, data: string, options?: { readonly running?: string }): StoredEvent;
  replay(session: string, lastEventId: string): { stream: string; events: StoredEvent[] } | undefined;
  // SessionChannel
  signal(session: string, signal: SessionSignal): void;
  follow(session: string, listener: (signal: SessionSignal) => void): () => void;
  takeClientLines(): readonly { readonly session: string; readonly line: string }[];
  takeCancels(
    running: readonly Pick<RunningRequest, "session" | "request">[],
  ): readonly { readonly session: string; readonly request: string; readonly line: string }[];
  // RequestLeases
  running(request: RunningRequest): void;
  finished(session: string, request: string): void;
  onOrphan(listener: (request: RunningRequest) => void): () => void;
  // ServerBus
  broadcast(signal: ServerSignal): void;
  onBroadcast(listener: (signal: ServerSignal) => void): () => void;
  handleOps(): readonly HandleOp[];
  // TaskStore
  createTask(task: TaskRecord, limit?: TaskLimit): "created" | "full" | "full-for-caller";
  loadTask(id: string): TaskRecord | undefined;
  changeTask(id: string, change: TaskChange, options?: { readonly running?: boolean }): TaskRecord | undefined;
  answerTask(id: string, responses: Readonly<Record<string, unknown>>): readonly string[];
  takeAnswers(
    id: string,
  ): { readonly task: TaskRecord; readonly answers: Readonly<Record<string, unknown>> } | undefined;
  followTask(id: string, listener: (signal: TaskSignal) => void): () => void;
  taskRunning(id: string): void;
  taskFinished(id: string): void;
  onOrphanTask(listener: (id: string) => void): () => void;
  // KeyValueStore
  setValue(key: string, value: string, options: { readonly ttlMs: number; readonly ifAbsent?: boolean }): boolean;
  getValue(key: string): string | undefined;
  takeValue(key: string): string | undefined;
  deleteValue(key: string): boolean;
  countUp(key: string, windowMs: number): number;
  // RecordStore
  readRecord(key: string): StoredRecord | undefined;
  writeRecord(key: string, value: string, options?: RecordWriteOptions): number | undefined;
  swapRecord(
    key: string,
    expected: StoredRecord | undefined,
    value: string | undefined,
    options?: RecordSwapOptions,
  ): number | StoredRecord | undefined;
  deleteRecord(key: string, options?: { readonly ifVersion?: number }): boolean;
  listRecords(prefix: string, options: { readonly after?: string; readonly limit: number }): ListedRecord[];
  clearRecords(prefix: string): number;
}
