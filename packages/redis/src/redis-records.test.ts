import { createMemoryEngine, type Engine, isEngineUnavailable, type RecordStore } from "@toolsmith/core/engine";
import { eventually } from "@toolsmith/core/engine-suite";
import { describe, expect, it } from "vitest";
import { useRedis } from "./redis.test-util.js";
import { createRedisEngine } from "./redis-engine.js";

const at = useRedis();
type RedisEngine = Engine & RecordStore;

// The Redis engine's RecordStore as Redis holds it (the shared suite checks what any engine promises): each record's
// hash and expiry read back from Redis itself, the index, the bound across processes, lapsed members tidied, long
// lists and clears in bounded steps, and two processes racing compare-and-set writes on one key.

/** Two started engines of one server (as two processes: a connection each), and the name Redis gives each key. */
async function two(options: { maxRecords?: number; retryAfterSeconds?: number } = {}) {
  const namespace = crypto.randomUUID();
  // A lease of an hour: no tick runs a script of its own while a test counts a call's.
  const made = [0, 1].map(
    () => createRedisEngine({ url: at.redis.url, namespace, leaseMs: 3_600_000, ...options }) as RedisEngine,
  );
  at.engines.push(...made);
  for (const engine of made) await engine.start({ name: "records" });
  return { engines: made as [RedisEngine, RedisEngine], key: (name: string) => `ts:{${namespace}}:${name}` };
}

/** The keys' order as ZRANGEBYLEX gives it: UTF-8 bytes (code points). */
function byteOrder(keys: readonly string[]): string[] {
  return [...keys].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
}

/** How many scripts Redis has run (EVALSHA and EVAL), to count a call's round trips. */
async function scriptsRun(): Promise<number> {
  const stats = await at.raw.info("commandstats");
  return [...stats.matchAll(/^cmdstat_(?:evalsha|eval):calls=(\d+)/gm)].reduce(
    (sum, [, calls]) => sum + Number(calls),
    0,
  );
}

/** What `call` gives, and how many scripts it ran (one more on a script's first use: EVALSHA, then EVAL). */
async function counted<T>(call: () => T | Promise<T>): Promise<[T, number]> {
  const before = await scriptsRun();
  const answer = await call();
  return [answer, (await scriptsRun()) - before];
}

describe("the Redis engine's records", () => {
  it("keeps a record as a hash {v, n} with Redis's own expiry for ttlMs, its key in `records`", async () => {
    const { engines, key } = await two();
    const [a, b] = engines;
    expect(await a.writeRecord("doc", "one", { ttlMs: 60_000 })).toBe(1);
    expect(await at.raw.hgetall(key("r:doc"))).toEqual({ v: "one", n: "1" });
    const ttl = await at.raw.pttl(key("r:doc"));
    expect(ttl).toBeGreaterThan(50_000);
    expect(ttl).toBeLessThanOrEqual(60_000);
    expect(await at.raw.zscore(key("records"), "doc")).toBe("0");
    expect(await at.raw.zscore(key("rx"), "doc")).not.toBeNull();
    // A refused ifVersion changes nothing, expiry included.
    expect(await b.writeRecord("doc", "lost", { ifVersion: 7 })).toBeUndefined();
    expect(await at.raw.pttl(key("r:doc"))).toBeGreaterThan(0);
    // A write without ttlMs keeps it until deleted.
    expect(await b.writeRecord("doc", "two", { ifVersion: 1 })).toBe(2);
    expect(await at.raw.pttl(key("r:doc"))).toBe(-1);
    expect(await at.raw.zscore(key("rx"), "doc")).toBeNull();
    expect(await a.readRecord("doc")).toEqual({ value: "two", version: 2 });
    // One round trip a call: a script a change, a list of few records; a read is one HMGET.
    await b.listRecords("", { limit: 1 });
    expect(await counted(async () => a.writeRecord("doc", "three", { ifVersion: 2 }))).toEqual([3, 1]);
    expect(await counted(async () => a.listRecords("", { limit: 1000 }))).toEqual([
      [{ key: "doc", value: "three", version: 3 }],
      1,
    ]);
    expect(await counted(async () => a.readRecord("doc"))).toEqual([{ value: "three", version: 3 }, 0]);
    expect(await a.deleteRecord("doc", { ifVersion: 2 })).toBe(false);
    expect(await b.writeRecord("doc", "two", { ifVersion: 3 })).toBe(4);
    expect(await a.deleteRecord("doc", { ifVersion: 4 })).toBe(true);
    expect(await at.raw.exists(key("r:doc"), key("records"), key("rx"))).toBe(0);
    // Gone, it starts again at version 1.
    expect(await b.writeRecord("doc", "again", { ifVersion: 0 })).toBe(1);
  });

  it("lapses a record at its ttlMs; the member a list meets is removed then, and a lapsed key starts again at 1", async () => {
    const { engines, key } = await two();
    const [a, b] = engines;
    await a.writeRecord("p:brief", "soon gone", { ttlMs: 200 });
    await a.writeRecord("p:kept", "kept");
    await eventually(async () => (await b.readRecord("p:brief")) === undefined, "the record past its ttlMs");
    expect(await at.raw.zscore(key("records"), "p:brief")).toBe("0");
    expect(await b.listRecords("p:", { limit: 10 })).toEqual([{ key: "p:kept", value: "kept", version: 1 }]);
    expect(await at.raw.zrange(key("records"), "0", "-1")).toEqual(["p:kept"]);
    expect(await at.raw.zcard(key("rx"))).toBe(0);
    expect(await a.writeRecord("p:brief", "back", { ifVersion: 0 })).toBe(1);
    expect(await a.deleteRecord("p:brief", { ifVersion: 0 })).toBe(false);
    // Lapsed and made again for good, by a write or a swap: no longer in `rx`; rewritten for good, it has no expiry.
    for (const write of [() => b.writeRecord("p:again", "anew"), () => b.swapRecord("p:again", undefined, "anew")]) {
      await a.writeRecord("p:again", "soon gone", { ttlMs: 200 });
      await eventually(async () => (await b.readRecord("p:again")) === undefined, "the record past its ttlMs");
      expect(await write()).toBe(1);
      expect(await at.raw.zscore(key("rx"), "p:again")).toBeNull();
      expect(await b.swapRecord("p:again", { value: "anew", version: 1 }, "for good")).toBe(2);
      expect(await at.raw.pttl(key("r:p:again"))).toBe(-1);
      expect(await a.deleteRecord("p:again")).toBe(true);
    }
  });

  it("lists past thousands of lapsed members in bounded steps, and never answers fewer than are there", async () => {
    const { engines, key } = await two();
    const [a, b] = engines;
    // 5000 members whose records Redis no longer has (as if lapsed), between live ones.
    const lapsed = Array.from({ length: 5000 }, (_, n) => `l:${String(n).padStart(5, "0")}`);
    await at.raw.zadd(key("records"), ...lapsed.flatMap((name) => ["0", name]));
    for (const name of ["l:", "l:00000x", "l:zzz"]) await a.writeRecord(name, name);
    const [listed, steps] = await counted(() => b.listRecords("l:", { limit: 3 }));
    expect(listed.map((record) => record.key)).toEqual(["l:", "l:00000x", "l:zzz"]);
    // 2000 members looked at a step at most.
    expect(steps).toBe(3);
    expect(await at.raw.zcard(key("records"))).toBe(3);
    // Six values of 1 MiB: one step answers four (4 MiB, a list's bound), the next list after them the rest, exactly.
    const big = (n: number) => String(n).repeat(1_048_576);
    for (let n = 0; n < 6; n++) await a.writeRecord(`big:${n}`, big(n));
    const [bigs, bigSteps] = await counted(() => b.listRecords("big:", { limit: 10 }));
    expect(bigSteps).toBe(1);
    const rest = await b.listRecords("big:", { after: "big:3", limit: 10 });
    expect([...bigs, ...rest].map((record) => record.key)).toEqual([0, 1, 2, 3, 4, 5].map((n) => `big:${n}`));
    for (const [n, record] of [...bigs, ...rest].entries()) expect(record.value === big(n)).toBe(true);
    expect((await b.listRecords("big:", { after: "big:3", limit: 1 })).map((record) => record.key)).toEqual(["big:4"]);
  });

  it("clears a prefix in batches, counting live records only, and nothing outside the prefix", async () => {
    const { engines, key } = await two();
    const [a, b] = engines;
    const pipeline = at.raw.pipeline();
    for (let n = 0; n < 1234; n++) {
      const name = `x:${n}`;
      pipeline.hset(key(`r:${name}`), "v", "v", "n", "1").zadd(key("records"), "0", name);
    }
    await pipeline.exec();
    await a.writeRecord("x", "the prefix itself");
    await a.writeRecord("x;", "after the prefix");
    await a.writeRecord("w", "before it");
    await at.raw.zadd(key("records"), "0", "x:lapsed");
    // 500 records a step.
    expect(await a.clearRecords("none")).toBe(0);
    expect(await counted(() => b.clearRecords("x:"))).toEqual([1234, 3]);
    expect(await at.raw.zrange(key("records"), "0", "-1")).toEqual(["w", "x", "x;"]);
    expect(await a.clearRecords("x")).toBe(2);
    expect(await a.clearRecords("")).toBe(1);
    expect(await at.raw.keys(key("r:*"))).toEqual([]);
    expect(await at.raw.exists(key("records"), key("rx"))).toBe(0);
  });

  it("keeps at most maxRecords live records over every process: one more is EngineUnavailable until one goes", async () => {
    const { engines } = await two({ maxRecords: 3, retryAfterSeconds: 7 });
    const [a, b] = engines;
    await a.writeRecord("1", "v");
    await b.writeRecord("2", "v");
    await a.writeRecord("3", "v", { ttlMs: 600_000 });
    for (const engine of engines) {
      const full = engine.writeRecord("4", "v");
      await expect(full).rejects.toSatisfy(isEngineUnavailable);
      await expect(full).rejects.toMatchObject({
        retryAfterSeconds: 7,
        message: expect.stringMatching(/at most 3 live records/),
      });
    }
    // A live record rewritten needs no room.
    expect(await b.writeRecord("1", "w", { ifVersion: 1 })).toBe(2);
    expect(await b.deleteRecord("2")).toBe(true);
    expect(await a.writeRecord("4", "v")).toBe(1);
    // A lapsed record gives its place back.
    expect(await a.writeRecord("3", "w", { ttlMs: 200 })).toBe(2);
    await eventually(
      async () => (await Promise.resolve(b.writeRecord("5", "v")).catch(() => undefined)) === 1,
      "the lapsed record's place",
    );
    expect(await a.readRecord("3")).toBeUndefined();
  });

  it("loses no update of two processes racing 1000 compare-and-set writes each on one key", async () => {
    const { engines } = await two();
    let conflicts = 0;
    const add = async (engine: RedisEngine, times: number) => {
      for (let done = 0; done < times; ) {
        const found = await engine.readRecord("counter");
        const count = found === undefined ? 0 : Number(found.value);
        const written = await engine.writeRecord("counter", String(count + 1), { ifVersion: found?.version ?? 0 });
        if (written === undefined) conflicts++;
        else done++;
      }
    };
    await Promise.all(engines.map((engine) => add(engine, 1000)));
    expect(await engines[0].readRecord("counter")).toEqual({ value: "2000", version: 2000 });
    // The race was a race: some writes met the other's.
    expect(conflicts).toBeGreaterThan(0);
  });

  it("lists hostile keys in the memory engine's order (UTF-8 bytes: astral after all of the BMP), each exactly", async () => {
    const { engines } = await two();
    const [a, b] = engines;
    const memory = createMemoryEngine();
    memory.start({ name: "records" });
    const keys = [
      ...["*", "[", "(", "-", "+", "[x", "(x", "*x", "", "\u0000", "a\u0000b", "line\nbreak", "ts:{x}:r:y"],
      // "\xff" is U+00FF (bytes C3 BF): no key's UTF-8 holds the byte FF, which ends a prefix's range.
      ...["\xff", "\xff\xff", "\u00fe\u00ff", "\xff\u0000", "\u007f", "\u0080", "\u07ff", "\u0800"],
      ...["\ud7ff", "\ue000", "\ufffd", "\uffff", "\ud83d\ude42", "\ud800\udc00", "\u{10ffff}", "\uffff\u{10000}"],
      "k".repeat(1024),
      `${"\u{1f642}".repeat(511)}x`,
    ];
    for (const [n, name] of keys.entries()) {
      await a.writeRecord(name, `value ${n}`);
      memory.writeRecord(name, `value ${n}`);
    }
    /** The same list from Redis (the other engine) and from memory. */
    const same = async (prefix: string, options: { after?: string; limit: number }) => {
      const listed = await b.listRecords(prefix, options);
      expect(listed, `listRecords(${JSON.stringify(prefix)}, ${JSON.stringify(options)})`).toEqual(
        memory.listRecords(prefix, options),
      );
      return listed.map((record) => record.key);
    };
    const all = await same("", { limit: 1000 });
    expect(all).toEqual(byteOrder(keys));
    expect(all.indexOf("\uffff")).toBeLessThan(all.indexOf("\ud83d\ude42"));
    for (const record of await b.listRecords("", { limit: 1000 })) {
      expect(record.value).toBe(`value ${keys.indexOf(record.key)}`);
    }
    // One a page, each strictly after the last key; then every key as a prefix, and as `after` under another.
    const paged: string[] = [];
    for (let after: string | undefined; ; ) {
      const page = await same("", { limit: 1, ...(after === undefined ? {} : { after }) });
      if (page.length === 0) break;
      paged.push(...page);
      after = page[0];
    }
    expect(paged).toEqual(all);
    for (const prefix of keys) await same(prefix, { limit: 1000 });
    for (const after of keys) for (const prefix of ["", "\xff", "[", "\uffff"]) await same(prefix, { after, limit: 3 });
    expect(await same("\xff", { limit: 10 })).toEqual(["\xff", "\xff\u0000", "\xff\xff"]);
    memory.close();
  });

  it("refuses a maxRecords that is not a positive integer", () => {
    expect(() => createRedisEngine({ url: at.redis.url, maxRecords: 0 })).toThrow(
      /maxRecords must be a positive integer, not 0/,
    );
  });
});
