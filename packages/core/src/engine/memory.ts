import {
  type Engine,
  LeaseLost,
  type RunningRequest,
  type ServerSignal,
  type SessionChange,
  type SessionLimits,
  type SessionRecord,
  type SessionSignal,
  type StoredEvent,
  type TaskChange,
  type TaskLimit,
  type TaskRecord,
  type TaskSignal,
} from "./engine.js";
import { LocalBus } from "./memory-bus.js";
import { KeptCancels } from "./memory-cancels.js";
import { SessionTable } from "./memory-sessions.js";
import { TaskTable } from "./memory-tasks.js";

/** Options of `createMemoryEngine`. */
export interface MemoryEngineOptions {
  /** Events kept per session for resumption (default 512): older ones are dropped, oldest first. */
  readonly eventsPerSession?: number;
  /** The clock, in milliseconds (default `Date.now`): what idle expiry reads. */
  readonly now?: () => number;
}

type HandleOp = Extract<ServerSignal, { type: "handle" }>;

/** The in-memory engine: the `Engine` of one process, every method answering at once (no promise is ever made). */
export interface MemoryEngine extends Engine {
  readonly shared: false;
  start(server: { readonly name: string }): void;
  close(): void;
  createSession(record: SessionRecord, limits: SessionLimits): "created" | "full" | "full-for-caller";
  loadSession(id: string): SessionRecord | undefined;
  changeSession(id: string, change: SessionChange): void;
  deleteSession(id: string): boolean;
  subscribers(uri: string): readonly string[];
  sessionIds(): readonly string[];
  append(session: string, stream: string, data: string, options?: { readonly running?: string }): StoredEvent;
  replay(session: string, lastEventId: string): { stream: string; events: StoredEvent[] } | undefined;
  signal(session: string, signal: SessionSignal): void;
  takeClientLines(): readonly { readonly session: string; readonly line: string }[];
  takeCancels(
    running: readonly Pick<RunningRequest, "session" | "request">[],
  ): readonly { readonly session: string; readonly request: string; readonly line: string }[];
  follow(session: string, listener: (signal: SessionSignal) => void): () => void;
  broadcast(signal: ServerSignal): void;
  onBroadcast(listener: (signal: ServerSignal) => void): () => void;
  handleOps(): readonly HandleOp[];
  onResume(listener: () => void): () => void;
  running(request: RunningRequest): void;
  finished(session: string, request: string): void;
  onOrphan(listener: (request: RunningRequest) => void): () => void;
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
}

const DEFAULT_EVENTS_PER_SESSION = 512;
// Client lines kept for this process (as a shared engine keeps them for one): the newest this many.
const MAX_CLIENT_LINES = 256;
// Of those, at most this many from one session until they are taken: one client's flood pushes out no other's.
const MAX_CLIENT_LINES_PER_SESSION = 16;
// Expired sessions are ended (and `ended` signalled) at most this late; a session read after expiry ends at once.
const SWEEP_FLOOR_MS = 1000;
// setTimeout's longest delay: a longer one would fire at once.
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The default engine: sessions, events, the bus and leases held in this process's memory, for a server that runs as
 * one process. Synchronous throughout; its only timer (idle expiry) does not keep the process alive.
 * @example
 * ```ts source="examples/engine.ts#createMemoryEngine"
 * const engine = createMemoryEngine({ eventsPerSession: 1024 });
 * const server = createServer({ name: "notes", version: "1.0.0", engine });
 * ```
 */
export function createMemoryEngine(options: MemoryEngineOptions = {}): MemoryEngine {
  const eventsPerSession = options.eventsPerSession ?? DEFAULT_EVENTS_PER_SESSION;
  if (!Number.isInteger(eventsPerSession) || eventsPerSession < 1) {
    throw new RangeError(`eventsPerSession must be a positive integer, not ${eventsPerSession}`);
  }
  return new InMemoryEngine(eventsPerSession, options.now ?? Date.now);
}

class InMemoryEngine implements MemoryEngine {
  readonly node = crypto.randomUUID();
  readonly shared = false as const;
  readonly #now: () => number;
  readonly #bus = new LocalBus<SessionSignal>();
  readonly #sessions: SessionTable;
  readonly #handleOps: HandleOp[] = [];
  readonly #tasks: TaskTable;
  // session → request → what runs; kept only so the bookkeeping matches a shared engine's (no other process to orphan).
  readonly #running = new Map<string, Map<string, RunningRequest>>();
  // The tasks this process runs (taskRunning until taskFinished): what a task change `running` is checked against.
  readonly #runningTasks = new Set<string>();
  readonly #clientLines: { session: string; line: string }[] = [];
  readonly #cancels = new KeptCancels();
  #sweeper: ReturnType<typeof setTimeout> | undefined;
  #shortestIdleMs = SWEEP_FLOOR_MS;
  #closed = false;

  constructor(eventsPerSession: number, now: () => number) {
    this.#now = now;
    this.#tasks = new TaskTable(now);
    this.#sessions = new SessionTable(now, eventsPerSession, (id) => {
      this.#running.delete(id);
      this.#cancels.ended(id);
      this.#bus.signal(id, { type: "ended" });
    });
  }

  start(_server: { readonly name: string }): void {
    this.#open();
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#sweeper !== undefined) clearTimeout(this.#sweeper);
    this.#sweeper = undefined;
    this.#bus.close();
    this.#sessions.clear();
    this.#running.clear();
    this.#handleOps.length = 0;
    this.#tasks.clear();
    this.#runningTasks.clear();
    this.#clientLines.length = 0;
    this.#cancels.clear();
  }

  createSession(record: SessionRecord, limits: SessionLimits): "created" | "full" | "full-for-caller" {
    this.#open();
    const outcome = this.#sessions.create(record, limits);
    if (outcome === "created") {
      this.#shortestIdleMs = Math.min(this.#shortestIdleMs, limits.idleMs);
      if (this.#sweeper === undefined) this.#schedule(limits.idleMs);
    }
    return outcome;
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

  subscribers(uri: string): readonly string[] {
    this.#open();
    return this.#sessions.subscribers(uri);
  }

  sessionIds(): readonly string[] {
    this.#open();
    return this.#sessions.ids();
  }

  append(session: string, stream: string, data: string, options?: { readonly running?: string }): StoredEvent {
    this.#open();
    const request = options?.running;
    if (request !== undefined && !this.#running.get(session)?.has(request)) {
      throw new LeaseLost(`request ${request} of session ${session} is not running on this process`);
    }
    const event = this.#sessions.append(session, stream, data);
    // A session that ended keeps nothing and tells no one: the event goes nowhere.
    if (event === undefined) return { id: "", stream, data };
    this.#bus.signal(session, { type: "event", event });
    return event;
  }

  replay(session: string, lastEventId: string): { stream: string; events: StoredEvent[] } | undefined {
    this.#open();
    return this.#sessions.replay(session, lastEventId);
  }

  signal(session: string, signal: SessionSignal): void {
    this.#open();
    if (signal.type === "client" && signal.to === this.node) {
      const held = this.#clientLines.filter((kept) => kept.session === session).length;
      if (held < MAX_CLIENT_LINES_PER_SESSION) this.#clientLines.push({ session, line: signal.line });
      if (this.#clientLines.length > MAX_CLIENT_LINES) this.#clientLines.shift();
    }
    if (signal.type === "client" && signal.cancels !== undefined && this.#sessions.has(session)) {
      this.#cancels.keep(session, signal.cancels, signal.line);
    }
    this.#bus.signal(session, signal);
  }

  takeClientLines(): readonly { readonly session: string; readonly line: string }[] {
    this.#open();
    return this.#clientLines.splice(0);
  }

  takeCancels(running: readonly Pick<RunningRequest, "session" | "request">[]) {
    this.#open();
    return this.#cancels.take(running);
  }

  follow(session: string, listener: (signal: SessionSignal) => void): () => void {
    this.#open();
    return this.#bus.follow(session, listener);
  }

  broadcast(signal: ServerSignal): void {
    this.#open();
    // No other process hears it; a handle op is still kept, as a shared engine keeps it for processes to come.
    if (signal.type !== "handle") return;
    // A handle's op overrides its earlier enable or disable (and a second remove adds nothing): bounded by handles.
    const ops = this.#handleOps;
    let at = 0;
    for (const op of ops) {
      if (op.kind !== signal.kind || op.name !== signal.name || (op.op === "remove" && signal.op !== "remove")) {
        ops[at++] = op;
      }
    }
    ops.length = at;
    ops.push({ type: "handle", kind: signal.kind, name: signal.name, op: signal.op });
  }

  onBroadcast(_listener: (signal: ServerSignal) => void): () => void {
    this.#open();
    // Only other processes' broadcasts are heard, and there is none.
    return () => {};
  }

  onResume(_listener: () => void): () => void {
    this.#open();
    // Its store is this process's memory: never lost, so never resumed.
    return () => {};
  }

  handleOps(): readonly HandleOp[] {
    this.#open();
    return [...this.#handleOps];
  }

  running(request: RunningRequest): void {
    this.#open();
    let requests = this.#running.get(request.session);
    if (!requests) {
      requests = new Map();
      this.#running.set(request.session, requests);
    }
    requests.set(request.request, request);
  }

  finished(session: string, request: string): void {
    this.#open();
    const requests = this.#running.get(session);
    requests?.delete(request);
    if (requests?.size === 0) this.#running.delete(session);
  }

  onOrphan(_listener: (request: RunningRequest) => void): () => void {
    this.#open();
    // One process: a request's owner stops only with the engine itself, so no request is ever orphaned.
    return () => {};
  }

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
    if (options?.running && !this.#runningTasks.has(id) && this.#tasks.load(id) !== undefined) {
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
    this.#runningTasks.add(id);
  }

  taskFinished(id: string): void {
    this.#open();
    this.#runningTasks.delete(id);
  }

  onOrphanTask(_listener: (id: string) => void): () => void {
    this.#open();
    // One process: a task's runner stops only with the engine itself, so no task is ever orphaned.
    return () => {};
  }

  #open(): void {
    if (this.#closed) throw new Error("This memory engine is closed: a closed engine serves nothing (make a new one)");
  }

  #schedule(delayMs: number): void {
    this.#sweeper = setTimeout(
      () => {
        this.#sweeper = undefined;
        const earliest = this.#sessions.sweep();
        if (earliest === undefined || this.#closed) return;
        this.#schedule(Math.max(earliest - this.#now() + 1, Math.min(SWEEP_FLOOR_MS, this.#shortestIdleMs)));
      },
      Math.min(delayMs + 1, MAX_TIMER_MS),
    );
    // The sweep is housekeeping: it must not keep a finished process alive.
    (this.#sweeper as { unref?: () => void }).unref?.();
  }
}
