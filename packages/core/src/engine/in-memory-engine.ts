import { LeaseLost } from "./engine-errors.js";
import type { StoredEvent } from "./event-log.js";
import { MemoryBus } from "./memory-bus.js";
import type { HandleOp, MemoryEngine } from "./memory-engine.js";
import { MemoryLeases } from "./memory-leases.js";
import type { RecordTable } from "./memory-records.js";
import { MemorySessionChannel } from "./memory-session-channel.js";
import { SessionTable } from "./memory-sessions.js";
import { TaskTable } from "./memory-tasks.js";
import type { ValueTable } from "./memory-values.js";
import {
  checkRecord,
  type ListedRecord,
  type RecordSwapOptions,
  type RecordWriteOptions,
  type StoredRecord,
  sessionEnded,
  sessionScopeOf,
} from "./record-store.js";
import type { RunningRequest } from "./request-leases.js";
import type { ServerSignal } from "./server-bus.js";
import type { SessionSignal } from "./session-channel.js";
import type { InitializedSession, SessionChange, SessionLimits, SessionRecord } from "./session-store.js";
import type { TaskChange, TaskLimit, TaskRecord, TaskSignal } from "./task-store.js";

// Each role's state is its own part (memory-*.ts); the engine checks it is open, then hands each call to its part.
export class InMemoryEngine implements MemoryEngine {
  // Made on first use: a Worker allows no random value outside a request, and a server is often made at load.
  #node: string | undefined;
  readonly shared = false as const;
  readonly #sessions: SessionTable;
  readonly #channel: MemorySessionChannel;
  readonly #leases = new MemoryLeases();
  readonly #bus = new MemoryBus();
  readonly #tasks: TaskTable;
  readonly #values: ValueTable;
  readonly #records: RecordTable;
  #closed = false;

  constructor(eventsPerSession: number, now: () => number, values: ValueTable, records: RecordTable) {
    this.#tasks = new TaskTable(now);
    this.#values = values;
    this.#records = records;
    this.#channel = new MemorySessionChannel(
      () => this.node,
      (id) => this.#sessions.has(id),
    );
    this.#sessions = new SessionTable(now, eventsPerSession, (id) => {
      this.#leases.ended(id);
      this.#channel.ended(id);
      // Its store (`ctx.store.session`) ends with it; an id too long for a store scope has none.
      const scope = sessionScopeOf(id);
      if (scope !== undefined) this.#records.clearRecords(scope);
    });
  }

  get node(): string {
    this.#node ??= crypto.randomUUID();
    return this.#node;
  }

  // ── EngineLifecycle ──

  start(_server: { readonly name: string }): void {
    this.#open();
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#channel.close();
    this.#sessions.clear();
    this.#leases.clear();
    this.#bus.clear();
    this.#tasks.clear();
    this.#values.clear();
    this.#records.clear();
  }

  onResume(_listener: () => void): () => void {
    this.#open();
    // Its store is this process's memory: never lost, so never resumed.
    return () => {};
  }

  // ── SessionStore ──

  createSession(record: SessionRecord, limits: SessionLimits): "created" | "full" | "full-for-caller" {
    this.#open();
    return this.#sessions.create(record, limits);
  }

  loadSession(id: string): SessionRecord | undefined {
    this.#open();
    return this.#sessions.load(id);
  }

  changeSession(id: string, change: SessionChange): void {
    this.#open();
    this.#sessions.change(id, change);
  }

  deleteSession(id: string): boolean {
    this.#open();
    return this.#sessions.delete(id);
  }

  initializedSessions(uri?: string): readonly InitializedSession[] {
    this.#open();
    return this.#sessions.initialized(uri);
  }

  subscribers(uri: string): readonly string[] {
    this.#open();
    return this.#sessions.subscribers(uri);
  }

  sessionIds(): readonly string[] {
    this.#open();
    return this.#sessions.ids();
  }

  // ── EventLog ──

  append(session: string, stream: string, data: string, options?: { readonly running?: string }): StoredEvent {
    this.#open();
    const request = options?.running;
    if (request !== undefined && !this.#leases.holds(session, request)) {
      throw new LeaseLost(`request ${request} of session ${session} is not running on this process`);
    }
    const event = this.#sessions.append(session, stream, data);
    // A session that ended keeps nothing and tells no one: the event goes nowhere.
    if (event === undefined) return { id: "", stream, data };
    this.#channel.signal(session, { type: "event", event });
    return event;
  }

  replay(session: string, lastEventId: string): { stream: string; events: StoredEvent[] } | undefined {
    this.#open();
    return this.#sessions.replay(session, lastEventId);
  }

  // ── SessionChannel ──

  signal(session: string, signal: SessionSignal): void {
    this.#open();
    this.#channel.signal(session, signal);
  }

  follow(session: string, listener: (signal: SessionSignal) => void): () => void {
    this.#open();
    return this.#channel.follow(session, listener);
  }

  takeClientLines(): readonly { readonly session: string; readonly line: string }[] {
    this.#open();
    return this.#channel.takeClientLines();
  }

  takeCancels(running: readonly Pick<RunningRequest, "session" | "request">[]) {
    this.#open();
    return this.#channel.takeCancels(running);
  }

  // ── RequestLeases ──

  running(request: RunningRequest): void {
    this.#open();
    this.#leases.running(request);
  }

  finished(session: string, request: string): void {
    this.#open();
    this.#leases.finished(session, request);
  }

  onOrphan(listener: (request: RunningRequest) => void): () => void {
    this.#open();
    return this.#leases.onOrphan(listener);
  }

  // ── ServerBus ──

  broadcast(signal: ServerSignal): void {
    this.#open();
    this.#bus.broadcast(signal);
  }

  onBroadcast(listener: (signal: ServerSignal) => void): () => void {
    this.#open();
    return this.#bus.onBroadcast(listener);
  }

  handleOps(): readonly HandleOp[] {
    this.#open();
    return this.#bus.handleOps();
  }

  // ── TaskStore ──

  createTask(task: TaskRecord, limit?: TaskLimit): "created" | "full" | "full-for-caller" {
    this.#open();
    return this.#tasks.create(task, limit);
  }

  loadTask(id: string): TaskRecord | undefined {
    this.#open();
    return this.#tasks.load(id);
  }

  changeTask(id: string, change: TaskChange, options?: { readonly running?: boolean }): TaskRecord | undefined {
    this.#open();
    if (options?.running && !this.#leases.runsTask(id) && this.#tasks.load(id) !== undefined) {
      throw new LeaseLost(`task ${id} is not running on this process`);
    }
    return this.#tasks.change(id, change);
  }

  answerTask(id: string, responses: Readonly<Record<string, unknown>>): readonly string[] {
    this.#open();
    return this.#tasks.answer(id, responses);
  }

  takeAnswers(
    id: string,
  ): { readonly task: TaskRecord; readonly answers: Readonly<Record<string, unknown>> } | undefined {
    this.#open();
    return this.#tasks.take(id);
  }

  followTask(id: string, listener: (signal: TaskSignal) => void): () => void {
    this.#open();
    return this.#tasks.follow(id, listener);
  }

  taskRunning(id: string): void {
    this.#open();
    this.#leases.taskRunning(id);
  }

  taskFinished(id: string): void {
    this.#open();
    this.#leases.taskFinished(id);
  }

  onOrphanTask(_listener: (id: string) => void): () => void {
    this.#open();
    // One process: a task's runner stops only with the engine itself, so no task is ever orphaned.
    return () => {};
  }

  // ── KeyValueStore ──

  setValue(key: string, value: string, options: { readonly ttlMs: number; readonly ifAbsent?: boolean }): boolean {
    this.#open();
    return this.#values.setValue(key, value, options);
  }

  getValue(key: string): string | undefined {
    this.#open();
    return this.#values.getValue(key);
  }

  takeValue(key: string): string | undefined {
    this.#open();
    return this.#values.takeValue(key);
  }

  deleteValue(key: string): boolean {
    this.#open();
    return this.#values.deleteValue(key);
  }

  countUp(key: string, windowMs: number): number {
    this.#open();
    return this.#values.countUp(key, windowMs);
  }

  // ── RecordStore ──

  readRecord(key: string): StoredRecord | undefined {
    this.#open();
    return this.#records.readRecord(key);
  }

  writeRecord(key: string, value: string, options?: RecordWriteOptions): number | undefined {
    this.#open();
    // A session's record is kept only while it lives (its end clears its scope): checked and written in one step.
    const session = options?.session;
    if (session !== undefined) {
      checkRecord(key, { value, ...options });
      if (!this.#sessions.has(session)) throw sessionEnded(session);
    }
    return this.#records.writeRecord(key, value, options);
  }

  swapRecord(
    key: string,
    expected: StoredRecord | undefined,
    value: string | undefined,
    options?: RecordSwapOptions,
  ): number | StoredRecord | undefined {
    this.#open();
    // As writeRecord: a session's record is written only while it lives (a delete needs no live session).
    const session = options?.session;
    if (session !== undefined && value !== undefined) {
      checkRecord(key, { value, ttlMs: options?.ttlMs, session });
      if (!this.#sessions.has(session)) throw sessionEnded(session);
    }
    return this.#records.swapRecord(key, expected, value, options);
  }

  deleteRecord(key: string, options?: { readonly ifVersion?: number }): boolean {
    this.#open();
    return this.#records.deleteRecord(key, options);
  }

  listRecords(prefix: string, options: { readonly after?: string; readonly limit: number }): ListedRecord[] {
    this.#open();
    return this.#records.listRecords(prefix, options);
  }

  clearRecords(prefix: string): number {
    this.#open();
    return this.#records.clearRecords(prefix);
  }

  #open(): void {
    if (this.#closed) throw new Error("This memory engine is closed: a closed engine serves nothing (make a new one)");
  }
}
