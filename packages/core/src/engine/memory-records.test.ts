import { afterEach, describe, expect, it, vi } from "vitest";
import { ROOMY, recordOf } from "../engine-suite/helpers.js";
import { isEngineUnavailable } from "./engine.js";
import { createMemoryEngine } from "./memory.js";
import { compareKeys, RecordTable } from "./memory-records.js";
import { storeScopePrefix } from "./record-store.js";
import { thrown, useTimedEngines } from "./timed-engine.test-util.js";

const timed = useTimedEngines();
const tables: RecordTable[] = [];
afterEach(() => {
  for (const table of tables.splice(0)) table.clear();
});

describe("the memory engine's records", () => {
  it("keeps a record through the last millisecond of its ttlMs by its own clock, and not one more", () => {
    const { engine, advance } = timed();
    expect(engine.writeRecord("a", "1", { ttlMs: 1000 })).toBe(1);
    engine.writeRecord("b", "1", { ttlMs: 10 });
    advance(1000);
    expect(engine.readRecord("a")).toEqual({ value: "1", version: 1 });
    expect(engine.listRecords("", { limit: 10 }).map((r) => r.key)).toEqual(["a"]);
    advance(1);
    expect(engine.readRecord("a")).toBeUndefined();
    expect(engine.deleteRecord("a")).toBe(false);
    expect(engine.clearRecords("")).toBe(0);
    // A lapsed record is no record: ifVersion 0 writes over it, and it starts again at 1.
    engine.writeRecord("c", "1", { ttlMs: 10 });
    engine.writeRecord("c", "2", { ttlMs: 10 });
    advance(11);
    expect(engine.writeRecord("c", "3", { ifVersion: 0 })).toBe(1);
    advance(1_000_000);
    expect(engine.readRecord("c")).toEqual({ value: "3", version: 1 });
  });

  it("keeps at most maxRecords live records: one more is EngineUnavailable until one goes", () => {
    const { engine, advance } = timed({ maxRecords: 2 });
    engine.writeRecord("a", "1", { ttlMs: 1000 });
    engine.writeRecord("b", "1");
    const full = thrown(() => engine.writeRecord("c", "1"));
    expect(isEngineUnavailable(full)).toBe(true);
    expect((full as Error).message).toMatch(/at most 2 live records/);
    // Rewriting a live record, or missing its version, needs no room.
    expect(engine.writeRecord("a", "2", { ttlMs: 1000 })).toBe(2);
    expect(engine.writeRecord("c", "1", { ifVersion: 3 })).toBeUndefined();
    advance(1001);
    expect(engine.writeRecord("c", "1")).toBe(1);
    expect(isEngineUnavailable(thrown(() => engine.writeRecord("d", "1")))).toBe(true);
    engine.deleteRecord("b");
    expect(engine.writeRecord("d", "1")).toBe(1);
    expect(() => createMemoryEngine({ maxRecords: 0 })).toThrow(/maxRecords must be a positive integer, not 0/);
  });

  it("drops lapsed records unasked, by a sweep that does not hold the process open", () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const timeout = vi.spyOn(globalThis, "setTimeout");
    const table = new RecordTable(() => Date.now(), 10);
    tables.push(table);
    table.writeRecord("a", "1", { ttlMs: 5000 });
    table.writeRecord("b", "1", { ttlMs: 60_000 });
    table.writeRecord("c", "1");
    const timer = timeout.mock.results[0]?.value as { hasRef(): boolean };
    expect(timer.hasRef()).toBe(false);
    vi.advanceTimersByTime(5000);
    expect(table.size).toBe(3);
    vi.advanceTimersByTime(1000);
    expect(table.size).toBe(2);
    vi.advanceTimersByTime(55_000);
    expect(table.size).toBe(1);
    expect(vi.getTimerCount()).toBe(0);
    expect(table.listRecords("", { limit: 5 }).map((r) => r.key)).toEqual(["c"]);
  });

  it("orders keys by code point, as UTF-8 bytes compare", () => {
    const bytes = (text: string) => [...new TextEncoder().encode(text)];
    const byBytes = (a: string, b: string) => {
      const [x, y] = [bytes(a), bytes(b)];
      for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return (x[i] ?? 0) - (y[i] ?? 0);
      return x.length - y.length;
    };
    const units = ["a", "z", "\u007f", "\u0080", "é", "\u07ff", "\u0800", "\ud7ff", "\ue000", "\uffff", "🙂", "𐀀"];
    const keys = units.flatMap((x) => units.map((y) => x + y)).concat(units, [""]);
    const wrong = keys.flatMap((a) =>
      keys.filter((b) => Math.sign(compareKeys(a, b)) !== Math.sign(byBytes(a, b))).map((b) => [a, b]),
    );
    expect(wrong).toEqual([]);
  });

  it("clears a session's store scope when the session ends, and no other", () => {
    const { engine } = timed();
    const [one, two] = [recordOf(), recordOf()];
    engine.createSession(one, ROOMY);
    engine.createSession(two, ROOMY);
    engine.writeRecord(`${storeScopePrefix("x", one.id)}k`, "1");
    engine.writeRecord(`${storeScopePrefix("x", two.id)}k`, "2");
    engine.writeRecord(`${storeScopePrefix("s")}k`, "3");
    engine.deleteSession(one.id);
    expect(engine.listRecords("d:", { limit: 10 }).map((r) => r.value)).toEqual(["3", "2"]);
  });

  it("answers at once (no promise), and after close throws like every other member", () => {
    const { engine } = timed();
    const results: unknown[] = [
      engine.writeRecord("k", "v"),
      engine.readRecord("k"),
      engine.listRecords("", { limit: 1 }),
      engine.deleteRecord("k"),
      engine.clearRecords(""),
    ];
    expect(results).toEqual([1, { value: "v", version: 1 }, [{ key: "k", value: "v", version: 1 }], true, 0]);
    engine.close();
    expect(() => engine.readRecord("k")).toThrow(/memory engine is closed/);
    expect(() => engine.writeRecord("k", "v")).toThrow(/memory engine is closed/);
  });
});

describe("storeScopePrefix", () => {
  it("gives a subject with a lone surrogate a scope of its own, apart from every other subject's", () => {
    const subjects = ["a\uD800", "a\uDC00", "a%uD800", "a%25uD800", "a", "\uD83D\uDE00", "\uDE00\uD83D", "x:y"];
    const prefixes = subjects.map((subject) => storeScopePrefix("u", subject));
    expect(new Set(prefixes).size).toBe(subjects.length);
    for (const prefix of prefixes) {
      expect(prefix.slice(4, -1)).not.toContain(":");
      expect(prefix).not.toMatch(/[\uD800-\uDFFF]/);
    }
    expect(storeScopePrefix("u", "a\uD800b")).toBe("d:u:a%uD800b:");
    for (const [i, one] of prefixes.entries()) {
      for (const [j, other] of prefixes.entries()) if (i !== j) expect(one.startsWith(other)).toBe(false);
    }
  });

  it("refuses an id too long for a scope with a RangeError that says so", () => {
    expect(() => storeScopePrefix("u", "é".repeat(100))).toThrow(
      /at most \d+ characters URI-encoded; this subject is 600/,
    );
  });
});
