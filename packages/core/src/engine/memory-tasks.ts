import type { TaskChange, TaskRecord, TaskSignal } from "./engine.js";
import { LocalBus } from "./memory-bus.js";

const TERMINAL = new Set(["completed", "cancelled", "failed"]);

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

/** The tasks of one process: kept until their TTL has passed (never purged before), signalled in process. */
export class TaskTable {
  readonly #tasks = new Map<string, TaskRecord>();
  readonly #bus = new LocalBus<TaskSignal>();
  readonly #now: () => number;

  constructor(now: () => number) {
    this.#now = now;
  }

  create(task: TaskRecord): void {
    if (this.#tasks.has(task.id)) throw new Error(`a task with id ${task.id} already exists`);
    this.#tasks.set(task.id, structuredClone(task));
  }

  load(id: string): TaskRecord | undefined {
    const task = this.#tasks.get(id);
    if (task === undefined) return undefined;
    if (task.ttlMs !== null && this.#now() > task.createdAt + task.ttlMs) {
      this.#tasks.delete(id);
      return undefined;
    }
    return task;
  }

  change(id: string, change: TaskChange): TaskRecord | undefined {
    const task = this.load(id);
    if (task === undefined) return undefined;
    const next = changed(task, change, this.#now());
    if (next === task) return task;
    this.#tasks.set(id, next);
    this.#bus.signal(id, { type: "changed", task: next });
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
    for (const key of taken) this.#bus.signal(id, { type: "answer", key, value: responses[key] });
    this.#bus.signal(id, { type: "changed", task: next });
    return taken;
  }

  follow(id: string, listener: (signal: TaskSignal) => void): () => void {
    return this.#bus.follow(id, listener);
  }

  /** Drop the tasks whose TTL has passed. */
  sweep(): void {
    for (const id of [...this.#tasks.keys()]) this.load(id);
  }

  clear(): void {
    this.#tasks.clear();
    this.#bus.close();
  }
}
