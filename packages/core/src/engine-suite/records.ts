import { describe, expect, it } from "vitest";
import { type EngineLifecycle, RECORD_BOUNDS, type RecordStore } from "../engine/engine.js";
import { DEADLINE_MS, eventually, type MakeEngines, ODD, openerOf, TEST_TIMEOUT_MS } from "./helpers.js";
import { recordBoundsCases } from "./records-bounds.js";

type Records = EngineLifecycle & RecordStore;

// Writers racing for one record, spread over every engine as over a server's processes.
const RACERS = 32;

function spread(engines: readonly Records[], n: number): Records {
  return engines[n % engines.length] as Records;
}

/** Code point order, spelled out. */
function byCodePoint(a: string, b: string): number {
  const x = [...a].map((c) => c.codePointAt(0) as number);
  const y = [...b].map((c) => c.codePointAt(0) as number);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return (x[i] as number) - (y[i] as number);
  return x.length - y.length;
}

/** Read, then write at the version read, until the write lands: how many tries it took. */
async function bump(engine: Records, key: string): Promise<number> {
  for (let tries = 1; ; tries++) {
    const read = await engine.readRecord(key);
    const next = String(Number(read?.value ?? "0") + 1);
    if ((await engine.writeRecord(key, next, { ifVersion: read?.version ?? 0 })) !== undefined) return tries;
  }
}

/** Swap from what the last swap answered (a first read only), until one lands: how many swaps it took. */
async function swapUp(engine: Records, key: string): Promise<number> {
  let found = await engine.readRecord(key);
  for (let tries = 1; ; tries++) {
    const outcome = await engine.swapRecord(key, found, String(Number(found?.value ?? "0") + 1));
    if (typeof outcome === "number") return tries;
    found = outcome;
  }
}

/**
 * What every `RecordStore` promises: records seen by every process, versions that make compare-and-set atomic
 * however many writers race (on every engine `make` gives), expiry and its removal, listing by prefix in code point
 * order with paging, clearing by prefix, values and keys kept exactly, and the bounds (`RECORD_BOUNDS`,
 * `checkRecord`) refused alike.
 */
export function recordStoreSuite(name: string, make: MakeEngines<Records>): void {
  describe(`record store suite: ${name}`, { timeout: TEST_TIMEOUT_MS }, () => {
    const { open } = openerOf(make);

    it("keeps a record for every process, its version counting writes; deleting one starts it again", async () => {
      const engines = await open();
      const [first] = engines as [Records];
      const last = engines.at(-1) as Records;
      expect(await first.readRecord("k")).toBeUndefined();
      expect(await first.writeRecord("k", "one")).toBe(1);
      for (const engine of engines) expect(await engine.readRecord("k")).toEqual({ value: "one", version: 1 });
      expect(await last.writeRecord("k", "two")).toBe(2);
      expect(await first.writeRecord("k", "three")).toBe(3);
      for (const engine of engines) expect(await engine.readRecord("k")).toEqual({ value: "three", version: 3 });
      expect(await last.deleteRecord("k")).toBe(true);
      expect(await first.deleteRecord("k")).toBe(false);
      for (const engine of engines) expect(await engine.readRecord("k")).toBeUndefined();
      expect(await last.writeRecord("k", "again")).toBe(1);
      expect(await first.deleteRecord("never")).toBe(false);
    });

    it("writes and deletes at ifVersion only: 0 is no live record; a miss changes nothing", async () => {
      const [engine] = (await open()) as [Records];
      expect(await engine.writeRecord("cas", "a", { ifVersion: 1 })).toBeUndefined();
      expect(await engine.readRecord("cas")).toBeUndefined();
      expect(await engine.writeRecord("cas", "a", { ifVersion: 0 })).toBe(1);
      expect(await engine.writeRecord("cas", "b", { ifVersion: 0 })).toBeUndefined();
      expect(await engine.writeRecord("cas", "b", { ifVersion: 2 })).toBeUndefined();
      expect(await engine.readRecord("cas")).toEqual({ value: "a", version: 1 });
      expect(await engine.writeRecord("cas", "b", { ifVersion: 1 })).toBe(2);
      expect(await engine.deleteRecord("cas", { ifVersion: 1 })).toBe(false);
      expect(await engine.readRecord("cas")).toEqual({ value: "b", version: 2 });
      expect(await engine.deleteRecord("cas", { ifVersion: 2 })).toBe(true);
      expect(await engine.deleteRecord("cas", { ifVersion: 0 })).toBe(false);
      expect(await engine.writeRecord("cas", "c", { ifVersion: 0 })).toBe(1);
    });

    it("swaps only the exact record expected, its version and its value (none: undefined); a miss answers what is there", async () => {
      const engines = await open();
      const [first] = engines as [Records];
      const last = engines.at(-1) as Records;
      expect(await first.swapRecord("sw", { value: "a", version: 1 }, "b")).toBeUndefined();
      expect(await first.swapRecord("sw", undefined, undefined)).toBe(0);
      expect(await first.readRecord("sw")).toBeUndefined();
      expect(await first.swapRecord("sw", undefined, "a")).toBe(1);
      expect(await last.swapRecord("sw", undefined, "b")).toEqual({ value: "a", version: 1 });
      expect(await last.swapRecord("sw", undefined, undefined)).toEqual({ value: "a", version: 1 });
      expect(await last.swapRecord("sw", { value: "a", version: 2 }, "b")).toEqual({ value: "a", version: 1 });
      expect(await last.swapRecord("sw", { value: "a", version: 1 }, "b")).toBe(2);
      expect(await first.swapRecord("sw", { value: "a", version: 1 }, "c")).toEqual({ value: "b", version: 2 });
      for (const engine of engines) expect(await engine.readRecord("sw")).toEqual({ value: "b", version: 2 });
      // Deleted and made again, a record starts again at version 1: the value tells the old one from the new.
      expect(await first.swapRecord("sw", { value: "b", version: 2 }, undefined)).toBe(0);
      expect(await last.readRecord("sw")).toBeUndefined();
      expect(await last.writeRecord("sw", "new")).toBe(1);
      expect(await first.swapRecord("sw", { value: "a", version: 1 }, "lost")).toEqual({ value: "new", version: 1 });
      expect(await first.swapRecord("sw", { value: "a", version: 1 }, undefined)).toEqual({ value: "new", version: 1 });
      expect(await last.swapRecord("sw", { value: "", version: 1 }, "lost")).toEqual({ value: "new", version: 1 });
      // An empty value is a value, not none.
      expect(await last.swapRecord("sw", { value: "new", version: 1 }, "")).toBe(2);
      expect(await first.swapRecord("sw", undefined, "lost")).toEqual({ value: "", version: 2 });
      expect(await first.swapRecord("sw", { value: "", version: 2 }, "kept", { ttlMs: 600_000 })).toBe(3);
      expect(await last.readRecord("sw")).toEqual({ value: "kept", version: 3 });
      expect((await last.listRecords("sw", { limit: 10 })).map((r) => r.key)).toEqual(["sw"]);
      expect(await last.deleteRecord("sw", { ifVersion: 3 })).toBe(true);
    });

    it("keeps hostile keys apart and values exactly: unicode, line breaks, `__proto__`, 1 MiB", async () => {
      const engines = await open();
      const [first] = engines as [Records];
      const last = engines.at(-1) as Records;
      const keys = [...ODD.filter((key) => key.length <= 1024), "__proto__", "constructor", "", "k".repeat(1024)];
      const values = [...ODD, "é".repeat(524_288), "x".repeat(1_048_576), '{"__proto__":{"a":1}}\u2028', ""];
      for (const [n, key] of keys.entries()) {
        expect(await first.writeRecord(key, values[n % values.length] as string)).toBe(1);
      }
      for (const [n, key] of keys.entries()) {
        expect(await last.readRecord(key)).toEqual({ value: values[n % values.length], version: 1 });
      }
      const listed = await last.listRecords("", { limit: 1000 });
      expect(listed.map((record) => record.key)).toEqual([...keys].sort(byCodePoint));
      expect(({} as Record<string, unknown>).a).toBeUndefined();
    });

    it("lists by prefix in code point order (UTF-8 byte order), strictly after `after`, at most `limit`", async () => {
      const engines = await open();
      const [first] = engines as [Records];
      const last = engines.at(-1) as Records;
      // UTF-16 order would put the emoji (a surrogate pair) before U+E000 and U+FFFF; code point order puts it after.
      const inside = ["p:", "p:a", "p:a:b", "p:b", "p:z", "p:\u00e9", "p:\ue000", "p:\uffff", "p:🙂", "p:🙂x"];
      const outside = ["p", "p;", "o:z", "q:", "P:a", ""];
      for (const key of [...outside, ...inside].reverse()) await first.writeRecord(key, `v ${key}`);
      const all = await last.listRecords("p:", { limit: 1000 });
      expect(all.map((record) => record.key)).toEqual(inside);
      expect(all[1]).toEqual({ key: "p:a", value: "v p:a", version: 1 });
      const pages: string[][] = [];
      let after: string | undefined;
      for (;;) {
        const page = await spread(engines, pages.length).listRecords("p:", { limit: 3, ...(after ? { after } : {}) });
        if (page.length === 0) break;
        pages.push(page.map((record) => record.key));
        after = page.at(-1)?.key;
      }
      expect(pages).toEqual([inside.slice(0, 3), inside.slice(3, 6), inside.slice(6, 9), inside.slice(9)]);
      expect((await last.listRecords("p:", { after: "p:b", limit: 2 })).map((r) => r.key)).toEqual(["p:z", "p:é"]);
      // `after` between keys, before the prefix, and past it.
      expect((await last.listRecords("p:", { after: "p:aa", limit: 1 })).map((r) => r.key)).toEqual(["p:b"]);
      expect((await last.listRecords("p:", { after: "a", limit: 2 })).map((r) => r.key)).toEqual(["p:", "p:a"]);
      expect(await last.listRecords("p:", { after: "q", limit: 10 })).toEqual([]);
      expect(await last.listRecords("nothing:", { limit: 10 })).toEqual([]);
      expect((await last.listRecords("", { limit: 1000 })).length).toBe(inside.length + outside.length);
    });

    it("ends a list after the value that brings its values to listBytes, whatever the limit", async () => {
      const engines = await open();
      const [first] = engines as [Records];
      const last = engines.at(-1) as Records;
      const mib = RECORD_BOUNDS.valueBytes;
      // 1 MiB values (one of them two-byte characters, one a byte short), and a small one.
      const sizes: [string, string][] = [
        ["b:1", "x".repeat(mib)],
        ["b:2", "é".repeat(mib / 2)],
        ["b:3", "x".repeat(mib - 1)],
        ["b:4", "x".repeat(mib)],
        ["b:5", "x".repeat(mib)],
        ["b:6", "small"],
        ["b:7", "x".repeat(mib)],
      ];
      for (const [key, value] of sizes) await first.writeRecord(key, value);
      const keys = async (after?: string) =>
        (await last.listRecords("b:", { limit: 1000, ...(after ? { after } : {}) })).map((r) => r.key);
      // Four of them are a byte under 4 MiB (UTF-8, not UTF-16 units): the fifth brings it past, and is the last.
      expect(await keys()).toEqual(["b:1", "b:2", "b:3", "b:4", "b:5"]);
      expect(await keys("b:5")).toEqual(["b:6", "b:7"]);
      expect((await last.listRecords("b:", { limit: 2 })).map((r) => r.key)).toEqual(["b:1", "b:2"]);
      expect(RECORD_BOUNDS.listBytes).toBe(4 * mib);
    });

    it("clears every record under a prefix, and nothing else: how many live ones it deleted", async () => {
      const engines = await open();
      const [first] = engines as [Records];
      const last = engines.at(-1) as Records;
      for (const key of ["x:1:a", "x:1:b", "x:1:", "x:10", "x:2:a", "x:1"]) await first.writeRecord(key, "v");
      expect(await last.clearRecords("x:1:")).toBe(3);
      expect(await first.clearRecords("x:1:")).toBe(0);
      for (const engine of engines) {
        expect((await engine.listRecords("x:", { limit: 10 })).map((r) => r.key)).toEqual(["x:1", "x:10", "x:2:a"]);
        expect(await engine.readRecord("x:1:a")).toBeUndefined();
      }
      expect(await first.writeRecord("x:1:a", "again", { ifVersion: 0 })).toBe(1);
    });

    it(
      "lets a record lapse ttlMs after its write, and not before; a write without ttlMs keeps it",
      async () => {
        const engines = await open();
        const [first] = engines as [Records];
        const last = engines.at(-1) as Records;
        const ttlMs = 300;
        const writtenAt = Date.now();
        await first.writeRecord("t:brief", "gone soon", { ttlMs });
        await first.writeRecord("t:kept", "first", { ttlMs });
        expect(await first.writeRecord("t:kept", "for good")).toBe(2);
        await first.writeRecord("t:long", "kept", { ttlMs: 600_000 });
        expect(await last.swapRecord("t:swapped", undefined, "gone soon too", { ttlMs })).toBe(1);
        for (const engine of engines) {
          const found = await engine.readRecord("t:brief");
          // Only a read that ended before the expiry must have found it.
          if (Date.now() < writtenAt + ttlMs) expect(found?.value).toBe("gone soon");
        }
        await eventually(async () => {
          for (const engine of engines) if ((await engine.readRecord("t:brief")) !== undefined) return false;
          return true;
        }, `the record past its ${ttlMs} ms to be gone on every engine`);
        expect(Date.now()).toBeGreaterThanOrEqual(writtenAt + ttlMs);
        expect((await last.listRecords("t:", { limit: 10 })).map((r) => r.key)).toEqual(["t:kept", "t:long"]);
        expect(await first.deleteRecord("t:brief")).toBe(false);
        expect(await first.readRecord("t:swapped")).toBeUndefined();
        expect(await first.writeRecord("t:brief", "anew", { ifVersion: 0 })).toBe(1);
        expect(await last.readRecord("t:kept")).toEqual({ value: "for good", version: 2 });
      },
      DEADLINE_MS + 5000,
    );

    it("loses no write of racing compare-and-set writers spread over every process", async () => {
      const engines = await open();
      const perRacer = 5;
      const tries = await Promise.all(
        Array.from({ length: RACERS }, async (_, n) => {
          let total = 0;
          for (let i = 0; i < perRacer; i++) total += await bump(spread(engines, n), "counter");
          return total;
        }),
      );
      const expected = RACERS * perRacer;
      for (const engine of engines)
        expect(await engine.readRecord("counter")).toEqual({
          value: String(expected),
          version: expected,
        });
      expect(tries.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(expected);
      const created = await Promise.all(
        Array.from({ length: RACERS }, (_, n) => spread(engines, n).writeRecord("once", `w${n}`, { ifVersion: 0 })),
      );
      expect(created.filter((version) => version === 1).length).toBe(1);
    });

    it("loses no write of racing swappers spread over every process, each trying again on what its loss answered", async () => {
      const engines = await open();
      const perRacer = 5;
      const swaps = await Promise.all(
        Array.from({ length: RACERS }, async (_, n) => {
          let total = 0;
          for (let i = 0; i < perRacer; i++) total += await swapUp(spread(engines, n), "swapped");
          return total;
        }),
      );
      const expected = RACERS * perRacer;
      for (const engine of engines) {
        expect(await engine.readRecord("swapped")).toEqual({ value: String(expected), version: expected });
      }
      expect(swaps.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(expected);
      const created = await Promise.all(
        Array.from({ length: RACERS }, (_, n) => spread(engines, n).swapRecord("one", undefined, `w${n}`)),
      );
      expect(created.filter((outcome) => outcome === 1).length).toBe(1);
      const made = await engines[0]?.readRecord("one");
      expect(created.filter((outcome) => outcome !== 1)).toEqual(Array(RACERS - 1).fill(made));
    });

    recordBoundsCases(open);
  });
}
