import { afterEach, describe, expect, it, vi } from "vitest";
import { taskOf } from "../engine-suite/index.js";
import type { TaskRecord } from "./engine.js";
import { createMemoryEngine } from "./memory.js";
import { TaskTable } from "./memory-tasks.js";

const tables: TaskTable[] = [];
afterEach(() => {
  for (const table of tables.splice(0)) table.clear();
  vi.useRealTimers();
  vi.restoreAllMocks();
});

/** A table on a clock the test moves (with the fake timers). */
function table(start = 1_000_000) {
  vi.useFakeTimers({ now: start });
  const made = new TaskTable(() => Date.now());
  tables.push(made);
  return made;
}

describe("the memory engine's tasks", () => {
  it("purges a task past its TTL by a sweep, unasked, never before createdAt + ttlMs", () => {
    const tasks = table();
    const now = Date.now();
    tasks.create(taskOf({ createdAt: now, lastUpdatedAt: now, ttlMs: 5000 }));
    tasks.create(taskOf({ createdAt: now, lastUpdatedAt: now, ttlMs: 60_000 }));
    tasks.create(taskOf({ createdAt: now, lastUpdatedAt: now, ttlMs: null }));
    vi.advanceTimersByTime(5000);
    expect(tasks.size).toBe(3);
    vi.advanceTimersByTime(1001);
    expect(tasks.size).toBe(2);
    vi.advanceTimersByTime(55_000);
    expect(tasks.size).toBe(1);
    vi.advanceTimersByTime(10 * 365 * 86_400_000);
    expect(tasks.size).toBe(1);
  });

  it("sweeps on a timer that does not hold the process open, and clears it", () => {
    const timeout = vi.spyOn(globalThis, "setTimeout");
    const clear = vi.spyOn(globalThis, "clearTimeout");
    const engine = createMemoryEngine();
    engine.createTask(taskOf({ ttlMs: 60_000 }));
    const timer = timeout.mock.results[0]?.value as { hasRef(): boolean };
    expect(timer.hasRef()).toBe(false);
    engine.close();
    expect(clear).toHaveBeenCalledWith(timer);
  });

  it("keeps a task created after an earlier sweep was planned, and purges the earlier one first", () => {
    const tasks = table();
    const now = Date.now();
    const late: TaskRecord = taskOf({ createdAt: now, ttlMs: 60_000 });
    const soon: TaskRecord = taskOf({ createdAt: now, ttlMs: 2000 });
    tasks.create(late);
    tasks.create(soon);
    vi.advanceTimersByTime(3001);
    expect(tasks.size).toBe(1);
    expect(tasks.load(late.id)).toEqual(late);
  });
});
