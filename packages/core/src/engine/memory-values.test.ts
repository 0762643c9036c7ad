import { afterEach, describe, expect, it, vi } from "vitest";
import { isEngineUnavailable } from "./engine.js";
import { createMemoryEngine } from "./memory.js";
import { ValueTable } from "./memory-values.js";
import { thrown, useTimedEngines } from "./timed-engine.test-util.js";

const timed = useTimedEngines();
const tables: ValueTable[] = [];
afterEach(() => {
  for (const table of tables.splice(0)) table.clear();
});

describe("the memory engine's values", () => {
  it("keeps a value through its last millisecond by its own clock, and not one more", () => {
    const { engine, advance } = timed();
    expect(engine.setValue("a", "1", { ttlMs: 1000 })).toBe(true);
    advance(1000);
    expect(engine.getValue("a")).toBe("1");
    advance(1);
    expect(engine.getValue("a")).toBeUndefined();
    expect(engine.takeValue("a")).toBeUndefined();
    expect(engine.deleteValue("a")).toBe(false);
    // A lapsed value is no value: ifAbsent stores over it.
    engine.setValue("b", "1", { ttlMs: 10 });
    advance(11);
    expect(engine.setValue("b", "2", { ttlMs: 10, ifAbsent: true })).toBe(true);
    expect(engine.getValue("b")).toBe("2");
  });

  it("counts in a fixed window from the first count: counting does not extend it", () => {
    const { engine, advance } = timed();
    expect(engine.countUp("c", 1000)).toBe(1);
    advance(600);
    expect(engine.countUp("c", 1000)).toBe(2);
    advance(400);
    expect(engine.countUp("c", 1000)).toBe(3);
    advance(1);
    expect(engine.countUp("c", 1000)).toBe(1);
    // Counters are kept apart from values under the same key.
    expect(engine.getValue("c")).toBeUndefined();
    engine.setValue("c", "v", { ttlMs: 10 });
    expect(engine.countUp("c", 1000)).toBe(2);
  });

  it("keeps at most maxValues live values, and as many counters: one more is EngineUnavailable until one lapses", () => {
    const { engine, advance } = timed({ maxValues: 2 });
    engine.setValue("a", "1", { ttlMs: 1000 });
    engine.setValue("b", "1", { ttlMs: 2000 });
    const full = thrown(() => engine.setValue("c", "1", { ttlMs: 1000 }));
    expect(isEngineUnavailable(full)).toBe(true);
    expect((full as Error).message).toMatch(/at most 2 live values/);
    // Replacing a live value, or refusing one with ifAbsent, needs no room.
    expect(engine.setValue("a", "2", { ttlMs: 1000 })).toBe(true);
    expect(engine.setValue("b", "2", { ttlMs: 1000, ifAbsent: true })).toBe(false);
    engine.countUp("x", 5000);
    engine.countUp("y", 5000);
    expect(isEngineUnavailable(thrown(() => engine.countUp("z", 5000)))).toBe(true);
    expect(engine.countUp("x", 5000)).toBe(2);
    engine.deleteValue("b");
    expect(engine.setValue("c", "1", { ttlMs: 1000 })).toBe(true);
    advance(1001);
    expect(engine.setValue("d", "1", { ttlMs: 1000 })).toBe(true);
    expect(engine.setValue("e", "1", { ttlMs: 1000 })).toBe(true);
    advance(4000);
    expect(engine.countUp("z", 5000)).toBe(1);
    expect(() => createMemoryEngine({ maxValues: 0 })).toThrow(/maxValues must be a positive integer, not 0/);
  });

  it("drops lapsed values and counters unasked, by a sweep that does not hold the process open", () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const timeout = vi.spyOn(globalThis, "setTimeout");
    const table = new ValueTable(() => Date.now(), 10);
    tables.push(table);
    table.setValue("a", "1", { ttlMs: 5000 });
    table.countUp("n", 60_000);
    const timer = timeout.mock.results[0]?.value as { hasRef(): boolean };
    expect(timer.hasRef()).toBe(false);
    vi.advanceTimersByTime(5000);
    expect(table.size).toBe(2);
    vi.advanceTimersByTime(1000);
    expect(table.size).toBe(1);
    vi.advanceTimersByTime(55_000);
    expect(table.size).toBe(0);
    // Nothing left: no timer either.
    expect(vi.getTimerCount()).toBe(0);
  });

  it("answers at once (no promise), and after close throws like every other member", () => {
    const { engine } = timed();
    const results: unknown[] = [
      engine.setValue("k", "v", { ttlMs: 10 }),
      engine.getValue("k"),
      engine.takeValue("k"),
      engine.deleteValue("k"),
      engine.countUp("k", 10),
    ];
    expect(results).toEqual([true, "v", "v", false, 1]);
    engine.close();
    expect(() => engine.getValue("k")).toThrow(/memory engine is closed/);
    expect(() => engine.countUp("k", 10)).toThrow(/memory engine is closed/);
  });
});
