import { describe, expect, it } from "vitest";
import type { EngineLifecycle, KeyValueStore } from "../engine/engine.js";
import { DEADLINE_MS, eventually, type MakeEngines, ODD, openerOf, TEST_TIMEOUT_MS } from "./helpers.js";
import { valueBoundsCases } from "./values-bounds.js";

type Values = EngineLifecycle & KeyValueStore;

// Callers racing for one key, spread over every engine as over a server's processes.
const RACERS = 64;

/** `count` calls spread over `engines` in turn, all started before any is awaited. */
function race<T>(
  engines: readonly Values[],
  count: number,
  call: (engine: Values, n: number) => unknown,
): Promise<T[]> {
  return Promise.all(
    Array.from({ length: count }, (_, n) =>
      Promise.resolve().then(() => call(engines[n % engines.length] as Values, n)),
    ),
  ) as Promise<T[]>;
}

/**
 * What every `KeyValueStore` promises: values seen by every process until they lapse, `ifAbsent` and `takeValue`
 * atomic however many callers race (on every engine `make` gives, as processes of one server would), counters in a
 * fixed window, values and keys kept exactly, and the bounds (`KEY_VALUE_BOUNDS`, `checkKeyValue`) refused alike.
 */
export function keyValueStoreSuite(name: string, make: MakeEngines<Values>): void {
  describe(`key-value store suite: ${name}`, { timeout: TEST_TIMEOUT_MS }, () => {
    const { open } = openerOf(make);
    describe("values", () => {
      it("keeps a value for every process: replaced, read, deleted; counters apart from values", async () => {
        const engines = await open();
        const [first] = engines as [Values];
        const last = engines.at(-1) as Values;
        expect(await first.setValue("k", "one", { ttlMs: 60_000 })).toBe(true);
        for (const engine of engines) expect(await engine.getValue("k")).toBe("one");
        expect(await last.setValue("k", "two", { ttlMs: 60_000 })).toBe(true);
        expect(await last.setValue("k", "three", { ttlMs: 60_000, ifAbsent: true })).toBe(false);
        for (const engine of engines) expect(await engine.getValue("k")).toBe("two");
        expect(await first.countUp("k", 60_000)).toBe(1);
        expect(await first.getValue("k")).toBe("two");
        expect(await last.deleteValue("k")).toBe(true);
        expect(await first.deleteValue("k")).toBe(false);
        for (const engine of engines) expect(await engine.getValue("k")).toBeUndefined();
        expect(await first.countUp("k", 60_000)).toBe(2);
        expect(await first.getValue("never")).toBeUndefined();
        expect(await first.takeValue("never")).toBeUndefined();
        expect(await first.deleteValue("never")).toBe(false);
      });

      it("keeps hostile keys apart and values exactly: unicode, line breaks, `__proto__`, 64 KiB", async () => {
        const engines = await open();
        const [first] = engines as [Values];
        const last = engines.at(-1) as Values;
        const keys = [...ODD.filter((key) => key.length <= 512), "__proto__", "constructor", "", "k".repeat(512)];
        const wide = "é".repeat(32_768);
        const values = [...ODD, wide, "x".repeat(65_536), "🙂".repeat(16_384), '{"a":"\\u0000"}\u2028', ""];
        for (const [n, key] of keys.entries()) {
          expect(await first.setValue(key, values[n % values.length] as string, { ttlMs: 60_000 })).toBe(true);
        }
        for (const [n, key] of keys.entries()) expect(await last.getValue(key)).toBe(values[n % values.length]);
        for (const [n, value] of values.entries()) {
          await last.setValue(`v${n}`, value, { ttlMs: 60_000 });
          expect(await first.takeValue(`v${n}`)).toBe(value);
        }
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      });

      it("stores one of many racing ifAbsent callers, exactly one, across processes", async () => {
        const engines = await open();
        for (const round of [1, 2, 3]) {
          const key = `race-${round}`;
          const stored = await race<boolean>(engines, RACERS, (engine, n) =>
            engine.setValue(key, `caller ${n}`, { ttlMs: 60_000, ifAbsent: true }),
          );
          expect(stored.filter(Boolean).length).toBe(1);
          const winner = stored.indexOf(true);
          for (const engine of engines) expect(await engine.getValue(key)).toBe(`caller ${winner}`);
        }
      });

      it("gives a value to exactly one of many racing takers, once, across processes", async () => {
        const engines = await open();
        for (const round of [1, 2, 3]) {
          const key = `code-${round}`;
          await (engines.at(-1) as Values).setValue(key, `the code ${round}`, { ttlMs: 60_000 });
          const taken = await race<string | undefined>(engines, RACERS, (engine) => engine.takeValue(key));
          expect(taken.filter((value) => value !== undefined)).toEqual([`the code ${round}`]);
          for (const engine of engines) expect(await engine.getValue(key)).toBeUndefined();
          expect(await (engines[0] as Values).deleteValue(key)).toBe(false);
        }
      });

      it(
        "keeps a value until its ttlMs has passed, and not after: then it is absent for ifAbsent too",
        async () => {
          const engines = await open();
          const [first] = engines as [Values];
          const ttlMs = 300;
          const setAt = Date.now();
          await first.setValue("brief", "gone soon", { ttlMs });
          await first.setValue("long", "kept", { ttlMs: 600_000 });
          for (const engine of engines) {
            const found = await engine.getValue("brief");
            // Only a read that ended before the expiry must have found it.
            if (Date.now() < setAt + ttlMs) expect(found).toBe("gone soon");
          }
          await eventually(async () => {
            for (const engine of engines) if ((await engine.getValue("brief")) !== undefined) return false;
            return true;
          }, `the value past its ${ttlMs} ms to be gone on every engine`);
          expect(Date.now()).toBeGreaterThanOrEqual(setAt + ttlMs);
          expect(await first.takeValue("brief")).toBeUndefined();
          expect(await first.deleteValue("brief")).toBe(false);
          expect(await first.setValue("brief", "again", { ttlMs: 60_000, ifAbsent: true })).toBe(true);
          for (const engine of engines) expect(await engine.getValue("long")).toBe("kept");
        },
        DEADLINE_MS + 5000,
      );
    });

    describe("counters", () => {
      it("counts every racing caller once, across processes: 1 to n, each answered once", async () => {
        const engines = await open();
        const counts = await race<number>(engines, RACERS, (engine) => engine.countUp("hits", 600_000));
        expect([...counts].sort((a, b) => a - b)).toEqual(Array.from({ length: RACERS }, (_, n) => n + 1));
        expect(await (engines.at(-1) as Values).countUp("hits", 600_000)).toBe(RACERS + 1);
        expect(await (engines[0] as Values).countUp("other", 600_000)).toBe(1);
      });

      it(
        "lapses a counter windowMs after its first count, whatever came since: the next count is 1",
        async () => {
          const engines = await open();
          const [first] = engines as [Values];
          const last = engines.at(-1) as Values;
          const windowMs = 300;
          const madeAt = Date.now();
          expect(await first.countUp("window", windowMs)).toBe(1);
          const second = await last.countUp("window", windowMs);
          // Only a count that ended within the window must have counted on.
          if (Date.now() < madeAt + windowMs) expect(second).toBe(2);
          // Counting on does not extend the window: it lapses while counted.
          await eventually(async () => (await last.countUp("window", windowMs)) === 1, "the window to lapse");
          expect(Date.now()).toBeGreaterThanOrEqual(madeAt + windowMs);
        },
        DEADLINE_MS + 5000,
      );
    });

    valueBoundsCases(open);
  });
}
