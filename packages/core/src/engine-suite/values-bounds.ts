import { describe, expect, it } from "vitest";
import { type EngineLifecycle, KEY_VALUE_BOUNDS, type KeyValueStore } from "../engine/engine.js";
import type { Opener } from "./helpers.js";

type Values = EngineLifecycle & KeyValueStore;

/** What `call` threw (or its promise rejected with). */
async function refusal(call: () => unknown): Promise<unknown> {
  try {
    await call();
  } catch (error) {
    return error;
  }
  throw new Error("expected a refusal, and the call succeeded");
}

async function expectRefused(call: () => unknown, type: typeof TypeError | typeof RangeError, message: RegExp) {
  const error = await refusal(call);
  expect(error).toBeInstanceOf(type);
  expect((error as Error).message).toMatch(message);
}

/** What no `KeyValueStore` takes (`checkKeyValue`): refused before anything is kept, on every engine alike. */
export function valueBoundsCases(open: Opener<Values>["open"]): void {
  describe("bounds", () => {
    it("refuses a key longer than keyChars, or not a well-formed string (every member)", async () => {
      const [engine] = (await open()) as [Values];
      const long = "k".repeat(KEY_VALUE_BOUNDS.keyChars + 1);
      const lone = "half \uD83D pair";
      const calls: [string, (key: string) => unknown][] = [
        ["setValue", (key) => engine.setValue(key, "v", { ttlMs: 1000 })],
        ["getValue", (key) => engine.getValue(key)],
        ["takeValue", (key) => engine.takeValue(key)],
        ["deleteValue", (key) => engine.deleteValue(key)],
        ["countUp", (key) => engine.countUp(key, 1000)],
      ];
      for (const [, call] of calls) {
        await expectRefused(() => call(long), RangeError, /key is 513 characters long, more than the 512 allowed/);
        await expectRefused(() => call(lone), TypeError, /key must be well-formed Unicode/);
        await expectRefused(() => call(42 as unknown as string), TypeError, /key must be a string, not number/);
      }
      expect(await engine.countUp(lone.replace("\uD83D", "🙂"), 60_000)).toBe(1);
    });

    it("refuses a value past valueBytes (UTF-8) or not a well-formed string; nothing is kept", async () => {
      const [engine] = (await open()) as [Values];
      const max = KEY_VALUE_BOUNDS.valueBytes;
      const cases: [string, typeof TypeError | typeof RangeError, RegExp][] = [
        ["x".repeat(max + 1), RangeError, /value is 65537 bytes \(UTF-8\), more than the 65536 allowed/],
        // Fewer characters than the bound, more bytes: "€" is three.
        ["€".repeat(Math.floor(max / 3) + 1), RangeError, /value is 65538 bytes/],
        [`${"🙂".repeat(max / 4)}x`, RangeError, /value is 65537 bytes/],
        ["\uDC00 alone", TypeError, /value must be well-formed Unicode/],
        [{ toString: () => "v" } as unknown as string, TypeError, /value must be a string, not object/],
      ];
      for (const [value, type, message] of cases) {
        await expectRefused(() => engine.setValue("big", value, { ttlMs: 60_000 }), type, message);
        expect(await engine.getValue("big")).toBeUndefined();
      }
      expect(await engine.setValue("big", "€".repeat(max / 4), { ttlMs: 60_000 })).toBe(true);
    });

    it("refuses a ttlMs or windowMs that is not a whole number above 0; nothing is kept or counted", async () => {
      const [engine] = (await open()) as [Values];
      const ranges = [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53];
      for (const ms of ranges) {
        await expectRefused(
          () => engine.setValue("t", "v", { ttlMs: ms }),
          RangeError,
          /ttlMs must be a whole number above 0/,
        );
        await expectRefused(() => engine.countUp("t", ms), RangeError, /windowMs must be a whole number above 0/);
      }
      for (const ms of ["1000", undefined, null] as unknown as number[]) {
        await expectRefused(() => engine.setValue("t", "v", { ttlMs: ms }), TypeError, /ttlMs must be a number/);
        await expectRefused(() => engine.countUp("t", ms), TypeError, /windowMs must be a number/);
      }
      await expectRefused(
        () => engine.setValue("t", "v", {} as { ttlMs: number }),
        TypeError,
        /ttlMs must be a number/,
      );
      expect(await engine.getValue("t")).toBeUndefined();
      expect(await engine.countUp("t", 60_000)).toBe(1);
    });
  });
}
