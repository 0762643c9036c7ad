import { LocalChannels } from "./memory-channels.js";
import { SweepTimer } from "./sweep-timer.js";
import type { TaskChange, TaskLimit, TaskRecord, TaskSignal } from "./task-store.js";

const TERMINAL = new Set(["completed", "cancelled", "failed"]);

/** When a task may be purged (ms), or undefined when never. */
function purgeAfter(task: TaskRecord): number | undefined {
  return task.ttlMs === null ? undefined : task.createdAt + task.ttlMs;
}

/** True for a status a task never leaves. */
export function isTerminal(status: TaskRecord["status"]): boolean {
  return TERMINAL.has(status);
}

/** A task as `change` leaves it (terminal tasks stay as they are); `now` stamps `lastUpdatedAt`. */
export function changed(task: TaskRecord, change: TaskChange, now: number): TaskRecord {
  if (isTerminal(task.status)) return task;
  switch (change.kind) {
    case "message":
      return { ...task, statusMessage: change.statusMessage, lastUpdatedAt: now };
    case "ask":
      return {
        ...task,
        status: "input_required",
        inputRequests: { ...task.inputRequests, [change.key]: change.request },
        lastUpdatedAt: now,
      };
    case "unask": {
      if (!Object.hasOwn(task.inputRequests, change.key)) return task;
      const inputRequests = { ...task.inputRequests };
      delete inputRequests[change.key];
      const status = Object.keys(inputRequests).length === 0 ? "working" : task.status;
      return { ...task, status, inputRequests, lastUpdatedAt: now };
    }
    case "complete":
      return { ...task, status: "completed", inputRequests: {}, result: change.result, lastUpdatedAt: now };
    case "fail":
      return {
        ...task,
        status: "failed",
        inputRequests: {},
        error: change.error,
        ...(change.statusMessage === undefined ? {} : { statusMessage: change.statusMessage }),
        lastUpdatedAt: now,
      };
    case "cancel":
      return {
        ...task,
        status: "cancelled",
        inputRequests: {},
        ...(change.statusMessage === undefined ? {} : { statusMessage: change.statusMessage }),
        lastUpdatedAt: now,
      };
  }
}

/**
 * The tasks of one process: kept until their TTL has passed (never purged before), then purged by a sweep (a timer
 * that does not hold the process open) or the next load; signalled in process.
 */
export class TaskTable {
  readonly #tasks = new Map<string, TaskRecord>();
  // The ids each caller has stored, for the per-caller limit, and each counted task's caller; released when purged.
  readonly #owned = new Map<string, Set<string>>();
  readonly #callerOf = new Map<string, string>();
  readonly #channels = new LocalChannels<TaskSignal>();
  // Answers taken by `answer` and not yet by the task's process (`take`), by task and key.
  readonly #answers = new Map<string, Map<string, unknown>>();
  readonly #now: () => number;
  // Tasks past their TTL are purged by a sweep at most a second late (a load never finds them).
  readonly #sweeps: SweepTimer;
  // No task stored may be purged before this (ms; a lower bound: the earliest purge time at the last sweep or since).
  #earliest: number | undefined;

  constructor(now: () => number) {
    this.#now = now;
    this.#sweeps = new SweepTimer(now, () => this.sweep());
  }

  /** Keep it, unless `limit.caller` already has `limit.perCaller` tasks stored, or all callers `limit.max`. */
  create(task: TaskRecord, limit?: TaskLimit): "created" | "full" | "full-for-caller" {
    if (this.#tasks.has(task.id)) throw new Error(`a task with id ${task.id} already exists`);
    const full = limit === undefined ? undefined : this.#full(limit);
    if (full !== undefined) return full;
    this.#tasks.set(task.id, structuredClone(task));
    if (limit !== undefined) {
      const owned = this.#owned.get(limit.caller) ?? new Set<string>();
      owned.add(task.id);
      this.#owned.set(limit.caller, owned);
      this.#callerOf.set(task.id, limit.caller);
    }
    const at = purgeAfter(task);
    if (at !== undefined && (this.#earliest === undefined || at < this.#earliest)) this.#earliest = at;
    this.#sweeps.plan(at);
    return "created";
  }

  /** Why `limit` refuses one more task, if it does; those past their TTL but not yet swept do not count. */
  #full(limit: TaskLimit): "full" | "full-for-caller" | undefined {
    const owned = this.#owned.get(limit.caller);
    if (owned !== undefined && owned.size >= limit.perCaller) {
      for (const id of [...owned]) this.load(id);
      if (owned.size >= limit.perCaller) return "full-for-caller";
    }
    // Every counted task has its caller here; swept only when one may have passed its TTL (a refusal stays cheap).
    if (this.#callerOf.size >= limit.max) {
      if (this.#earliest !== undefined && this.#now() > this.#earliest) this.sweep();
      if (this.#callerOf.size >= limit.max) return "full";
    }
    return undefined;
  }

  /** How many tasks it holds (purged ones not counted). */
  get size(): number {
    return this.#tasks.size;
  }

  load(id: string): TaskRecord | undefined {
    const task = this.#tasks.get(id);
    if (task === undefined) return undefined;
    if (task.ttlMs !== null && this.#now() > task.createdAt + task.ttlMs) {
      this.#tasks.delete(id);
      this.#answers.delete(id);
      const caller = this.#callerOf.get(id);
      if (caller !== undefined) {
        this.#callerOf.delete(id);
        const owned = this.#owned.get(caller);
        owned?.delete(id);
        if (owned?.size === 0) this.#owned.delete(caller);
      }
      return undefined;
    }
    return task;
  }

  change(id: string, change: TaskChange): TaskRecord | undefined {
    const task = this.load(id);
    if (task === undefined) return undefined;
    // A copy: what the caller does to its objects afterwards must not reach the store (as with a shared engine's).
    const next = changed(task, structuredClone(change), this.#now());
    if (next === task) return task;
    this.#tasks.set(id, next);
    // A task that ended needs no more answers.
    if (isTerminal(next.status)) this.#answers.delete(id);
    this.#channels.signal(id, { type: "changed", task: next });
    return next;
  }

  answer(id: string, responses: Readonly<Record<string, unknown>>): readonly string[] {
    const task = this.load(id);
    if (task === undefined || isTerminal(task.status)) return [];
    const taken = Object.keys(responses).filter((key) => Object.hasOwn(task.inputRequests, key));
    if (taken.length === 0) return [];
    const inputRequests = { ...task.inputRequests };
    for (const key of taken) delete inputRequests[key];
    const status = Object.keys(inputRequests).length === 0 ? "working" : task.status;
    const next: TaskRecord = { ...task, status, inputRequests, lastUpdatedAt: this.#now() };
    this.#tasks.set(id, next);
    const kept = this.#answers.get(id) ?? new Map<string, unknown>();
    for (const key of taken) kept.set(key, structuredClone(responses[key]));
    this.#answers.set(id, kept);
    for (const key of taken) this.#channels.signal(id, { type: "answer", key, value: structuredClone(responses[key]) });
    this.#channels.signal(id, { type: "changed", task: next });
    return taken;
  }

  /** The answers kept for the task and not taken yet (removed now), with the task; undefined when unknown. */
  take(id: string): { task: TaskRecord; answers: Record<string, unknown> } | undefined {
    const task = this.load(id);
    if (task === undefined) return undefined;
    // fromEntries: a key such as `__proto__` stays a plain key.
    const answers: Record<string, unknown> = Object.fromEntries(this.#answers.get(id) ?? []);
    this.#answers.delete(id);
    return { task, answers };
  }

  follow(id: string, listener: (signal: TaskSignal) => void): () => void {
    return this.#channels.follow(id, listener);
  }

  /** Drop the tasks whose TTL has passed; when the next one may be purged, if any. */
  sweep(): number | undefined {
    let earliest: number | undefined;
    for (const id of [...this.#tasks.keys()]) {
      const task = this.load(id);
      const at = task === undefined ? undefined : purgeAfter(task);
      if (at !== undefined && (earliest === undefined || at < earliest)) earliest = at;
    }
    this.#earliest = earliest;
    return earliest;
  }

  clear(): void {
    this.#sweeps.stop();
    this.#earliest = undefined;
    this.#tasks.clear();
    this.#answers.clear();
    this.#owned.clear();
    this.#callerOf.clear();
    this.#channels.close();
  }
}
