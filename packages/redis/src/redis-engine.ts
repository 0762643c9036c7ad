import type {
  Engine,
  EngineOwner,
  RecordStore,
  RecordWriteOptions,
  RunningRequest,
  ServerSignal,
  SessionChange,
  SessionLimits,
  SessionRecord,
  SessionSignal,
  StoredEvent,
  StoredRecord,
  TaskChange,
  TaskLimit,
  TaskRecord,
  TaskSignal,
} from "@toolsmith/core/engine";
import { RedisEventLog } from "./event-log.js";
import { RedisKeyValueStore } from "./key-value-store.js";
import { RedisLifecycle } from "./lifecycle.js";
import { DEFAULTS, type RedisEngineOptions, type Settings, withoutUndefined } from "./options.js";
import { RedisRecordStore } from "./record-store.js";
import { RedisRequestLeases } from "./request-leases.js";
import { RedisServerBus } from "./server-bus.js";
import { RedisSessionChannel } from "./session-channel.js";
import { RedisSessionStore } from "./session-store.js";
import { RedisTaskStore } from "./task-store.js";

/**
 * The engine on Redis, for a server that runs as several processes (or restarts without losing its sessions): any
 * process serves any session, events replay anywhere, signals travel between processes, a request whose process
 * stopped is given to another, and the server's own records (the `RecordStore` role) are shared. Every call fails
 * with core's `EngineUnavailable` within about `commandTimeoutMs` when Redis cannot answer; the engine reconnects by
 * itself.
 * @example
 * ```ts source="examples/redis-engine.ts#createRedisEngine"
 * const engine = createRedisEngine({ url: process.env.REDIS_URL ?? "redis://127.0.0.1:6379" });
 * const server = createServer({ name: "notes", version: "1.0.0", engine });
 * ```
 */
export function createRedisEngine(options: RedisEngineOptions): Engine {
  const settings: Settings = { ...DEFAULTS, ...withoutUndefined(options), url: options.url };
  for (const key of ["leaseMs", "eventsPerSession", "commandTimeoutMs", "maxValues", "maxRecords"] as const) {
    const value = settings[key];
    if (!Number.isInteger(value) || value < 1) throw new RangeError(`${key} must be a positive integer, not ${value}`);
  }
  if (typeof options.url !== "string" || !/^rediss?:\/\//i.test(options.url)) {
    throw new TypeError("url must be a redis:// or rediss:// URL");
  }
  return new RedisEngine(settings);
}

// Every role is its own part, all reaching Redis through the lifecycle's clients; the engine hands each call to its part.
class RedisEngine implements Engine, RecordStore {
  readonly node: string;
  readonly shared = true;
  readonly #redis: RedisLifecycle;
  readonly #sessions: RedisSessionStore;
  readonly #events: RedisEventLog;
  readonly #channel: RedisSessionChannel;
  readonly #leases: RedisRequestLeases;
  readonly #bus: RedisServerBus;
  readonly #tasks: RedisTaskStore;
  readonly #values: RedisKeyValueStore;
  readonly #records: RedisRecordStore;

  constructor(settings: Settings) {
    this.#redis = new RedisLifecycle(settings);
    this.node = this.#redis.node;
    this.#sessions = new RedisSessionStore(this.#redis);
    this.#leases = new RedisRequestLeases(this.#redis);
    this.#events = new RedisEventLog(this.#redis, this.#leases);
    this.#channel = new RedisSessionChannel(this.#redis);
    this.#bus = new RedisServerBus(this.#redis);
    this.#tasks = new RedisTaskStore(this.#redis);
    this.#values = new RedisKeyValueStore(this.#redis);
    this.#records = new RedisRecordStore(this.#redis);
  }

  // ── EngineLifecycle ──
  start(server: EngineOwner) {
    return this.#redis.start(server);
  }
  close() {
    return this.#redis.close();
  }
  onResume(listener: () => void) {
    return this.#redis.onResume(listener);
  }

  // ── SessionStore ──
  createSession(record: SessionRecord, limits: SessionLimits) {
    return this.#sessions.createSession(record, limits);
  }
  loadSession(id: string) {
    return this.#sessions.loadSession(id);
  }
  changeSession(id: string, change: SessionChange) {
    return this.#sessions.changeSession(id, change);
  }
  deleteSession(id: string) {
    return this.#sessions.deleteSession(id);
  }
  initializedSessions(uri?: string) {
    return this.#sessions.initializedSessions(uri);
  }
  subscribers(uri: string) {
    return this.#sessions.subscribers(uri);
  }
  sessionIds() {
    return this.#sessions.sessionIds();
  }

  // ── EventLog ──
  append(session: string, stream: string, data: string, options?: { readonly running?: string }): Promise<StoredEvent> {
    return this.#events.append(session, stream, data, options);
  }
  replay(session: string, lastEventId: string) {
    return this.#events.replay(session, lastEventId);
  }

  // ── SessionChannel ──
  signal(session: string, signal: SessionSignal) {
    return this.#channel.signal(session, signal);
  }
  follow(session: string, listener: (signal: SessionSignal) => void) {
    return this.#channel.follow(session, listener);
  }
  takeClientLines() {
    return this.#channel.takeClientLines();
  }
  takeCancels(running: readonly Pick<RunningRequest, "session" | "request">[]) {
    return this.#channel.takeCancels(running);
  }

  // ── RequestLeases ──
  running(request: RunningRequest) {
    return this.#leases.running(request);
  }
  finished(session: string, request: string) {
    return this.#leases.finished(session, request);
  }
  onOrphan(listener: (request: RunningRequest) => void) {
    return this.#leases.onOrphan(listener);
  }

  // ── ServerBus ──
  broadcast(signal: ServerSignal) {
    return this.#bus.broadcast(signal);
  }
  onBroadcast(listener: (signal: ServerSignal) => void) {
    return this.#bus.onBroadcast(listener);
  }
  handleOps() {
    return this.#bus.handleOps();
  }

  // ── TaskStore ──
  createTask(task: TaskRecord, limit?: TaskLimit) {
    return this.#tasks.createTask(task, limit);
  }
  loadTask(id: string) {
    return this.#tasks.loadTask(id);
  }
  changeTask(id: string, change: TaskChange, options?: { readonly running?: boolean }) {
    return this.#tasks.changeTask(id, change, options);
  }
  answerTask(id: string, responses: Readonly<Record<string, unknown>>) {
    return this.#tasks.answerTask(id, responses);
  }
  takeAnswers(id: string) {
    return this.#tasks.takeAnswers(id);
  }
  followTask(id: string, listener: (signal: TaskSignal) => void) {
    return this.#tasks.followTask(id, listener);
  }
  taskRunning(id: string) {
    return this.#tasks.taskRunning(id);
  }
  taskFinished(id: string) {
    return this.#tasks.taskFinished(id);
  }
  onOrphanTask(listener: (id: string) => void) {
    return this.#tasks.onOrphanTask(listener);
  }

  // ── KeyValueStore ──
  setValue(key: string, value: string, options: { readonly ttlMs: number; readonly ifAbsent?: boolean }) {
    return this.#values.setValue(key, value, options);
  }
  getValue(key: string) {
    return this.#values.getValue(key);
  }
  takeValue(key: string) {
    return this.#values.takeValue(key);
  }
  deleteValue(key: string) {
    return this.#values.deleteValue(key);
  }
  countUp(key: string, windowMs: number) {
    return this.#values.countUp(key, windowMs);
  }

  // ── RecordStore ──
  readRecord(key: string) {
    return this.#records.readRecord(key);
  }
  writeRecord(key: string, value: string, options?: RecordWriteOptions) {
    return this.#records.writeRecord(key, value, options);
  }
  swapRecord(
    key: string,
    expected: StoredRecord | undefined,
    value: string | undefined,
    options?: { readonly ttlMs?: number },
  ) {
    return this.#records.swapRecord(key, expected, value, options);
  }
  deleteRecord(key: string, options?: { readonly ifVersion?: number }) {
    return this.#records.deleteRecord(key, options);
  }
  listRecords(prefix: string, options: { readonly after?: string; readonly limit: number }) {
    return this.#records.listRecords(prefix, options);
  }
  clearRecords(prefix: string) {
    return this.#records.clearRecords(prefix);
  }
}
