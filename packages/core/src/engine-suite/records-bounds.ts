import { describe, expect, it } from "vitest";
import { type EngineLifecycle, RECORD_BOUNDS, type RecordStore } from "../engine/engine.js";
import type { Opener } from "./helpers.js";

type Records = EngineLifecycle & RecordStore;

async function expectRefused(call: () => unknown, type: typeof TypeError | typeof RangeError, message: RegExp) {
  let thrown: unknown;
  try {
    await call();
  } catch (error) {
    thrown = error;
  }
  expect(thrown, `refused with ${type.name} ${message}`).toBeInstanceOf(type);
  expect((thrown as Error).message).toMatch(message);
}

/** What no `RecordStore` takes (`checkRecord`): refused before anything is kept, on every engine alike. */
export function recordBoundsCases(open: Opener<Records>["open"]): void {
  describe("bounds", () => {
    it("refuses a key, prefix or `after` longer than keyChars, or not a well-formed string (every member)", async () => {
      const [engine] = (await open()) as [Records];
      const long = "k".repeat(RECORD_BOUNDS.keyChars + 1);
      const lone = "half \uD83D pair";
      const calls: ((key: string) => unknown)[] = [
        (key) => engine.readRecord(key),
        (key) => engine.writeRecord(key, "v"),
        (key) => engine.deleteRecord(key),
        (key) => engine.swapRecord(key, undefined, "v"),
        (key) => engine.swapRecord(key, { value: "v", version: 1 }, undefined),
        (key) => engine.listRecords(key, { limit: 1 }),
        (key) => engine.listRecords("", { after: key, limit: 1 }),
        (key) => engine.clearRecords(key),
      ];
      for (const call of calls) {
        await expectRefused(() => call(long), RangeError, /key is 1025 characters long, more than the 1024 allowed/);
        await expectRefused(() => call(lone), TypeError, /key must be well-formed Unicode/);
        await expectRefused(() => call(42 as unknown as string), TypeError, /key must be a string, not number/);
      }
      expect(await engine.listRecords("", { limit: 10 })).toEqual([]);
    });

    it("refuses a value past valueBytes (UTF-8) or not a well-formed string; nothing is kept", async () => {
      const [engine] = (await open()) as [Records];
      const max = RECORD_BOUNDS.valueBytes;
      const cases: [string, typeof TypeError | typeof RangeError, RegExp][] = [
        ["x".repeat(max + 1), RangeError, /value is 1048577 bytes \(UTF-8\), more than the 1048576 allowed/],
        ["€".repeat(Math.floor(max / 3) + 1), RangeError, /value is 1048578 bytes/],
        [`${"🙂".repeat(max / 4)}x`, RangeError, /value is 1048577 bytes/],
        ["\uDC00 alone", TypeError, /value must be well-formed Unicode/],
        [{ toString: () => "v" } as unknown as string, TypeError, /value must be a string, not object/],
      ];
      for (const [value, type, message] of cases) {
        await expectRefused(() => engine.writeRecord("big", value), type, message);
        await expectRefused(() => engine.swapRecord("big", undefined, value), type, message);
        expect(await engine.readRecord("big")).toBeUndefined();
      }
      expect(await engine.writeRecord("big", "🙂".repeat(max / 4))).toBe(1);
    });

    it("refuses a bad ttlMs, ifVersion or limit before doing anything", async () => {
      const [engine] = (await open()) as [Records];
      await engine.writeRecord("n", "v");
      for (const ms of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53]) {
        await expectRefused(() => engine.writeRecord("n", "w", { ttlMs: ms }), RangeError, /ttlMs must be a whole/);
      }
      await expectRefused(() => engine.writeRecord("n", "w", { ttlMs: "9" as unknown as number }), TypeError, /ttlMs/);
      for (const version of [-1, 1.5, Number.NaN, 2 ** 53]) {
        await expectRefused(() => engine.writeRecord("n", "w", { ifVersion: version }), RangeError, /ifVersion/);
        await expectRefused(() => engine.deleteRecord("n", { ifVersion: version }), RangeError, /ifVersion/);
      }
      await expectRefused(() => engine.deleteRecord("n", { ifVersion: "1" as unknown as number }), TypeError, /ifV/);
      await expectRefused(() => engine.swapRecord("n", undefined, "w", { ttlMs: 0 }), RangeError, /ttlMs must be/);
      const expected: [unknown, typeof TypeError | typeof RangeError, RegExp][] = [
        [null, TypeError, /expected must be a record/],
        ["v", TypeError, /expected must be a record/],
        [{ value: "v", version: 0 }, RangeError, /expected.version must be a whole number from 1/],
        [{ value: "v", version: 1.5 }, RangeError, /expected.version/],
        [{ value: "v" }, TypeError, /expected.version must be a number/],
        [{ value: 1, version: 1 }, TypeError, /expected.value must be a string/],
        [{ value: "\uD800", version: 1 }, TypeError, /expected.value must be well-formed/],
        [{ value: "x".repeat(RECORD_BOUNDS.valueBytes + 1), version: 1 }, RangeError, /expected.value is longer/],
      ];
      for (const [given, type, message] of expected) {
        await expectRefused(
          () => engine.swapRecord("n", given as { value: string; version: number }, "w"),
          type,
          message,
        );
        await expectRefused(
          () => engine.swapRecord("n", given as { value: string; version: number }, undefined),
          type,
          message,
        );
      }
      for (const limit of [0, -1, 1.5, RECORD_BOUNDS.listLimit + 1, Number.NaN]) {
        await expectRefused(() => engine.listRecords("", { limit }), RangeError, /limit must be a whole number/);
      }
      await expectRefused(() => engine.listRecords("", {} as { limit: number }), TypeError, /limit must be a number/);
      expect(await engine.readRecord("n")).toEqual({ value: "v", version: 1 });
      // The longest time a number holds exactly is taken (as good as for ever), not cut short.
      expect(await engine.writeRecord("n", "w", { ttlMs: Number.MAX_SAFE_INTEGER })).toBe(2);
      expect(await engine.listRecords("", { limit: RECORD_BOUNDS.listLimit })).toHaveLength(1);
    });
  });
}
