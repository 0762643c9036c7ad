import { type Engine, isEngineUnavailable } from "@toolsmith/core/engine";
import { eventually } from "@toolsmith/core/engine-suite";
import { describe, expect, it } from "vitest";
import { useRedis } from "./redis.test-util.js";
import { createRedisEngine } from "./redis-engine.js";

const at = useRedis();

// The Redis engine's KeyValueStore as Redis holds it (the shared suite checks what any engine promises): each key's
// time to live read back from Redis itself, the bound on live values across processes, namespaces kept apart.

/** Two started engines of one server (as two processes), and the name Redis gives each of its keys. */
async function two(
  options: { maxValues?: number; retryAfterSeconds?: number } = {},
  namespace: string = crypto.randomUUID(),
) {
  const made = [0, 1].map(() => createRedisEngine({ url: at.redis.url, namespace, ...options }));
  at.engines.push(...made);
  for (const engine of made) await engine.start({ name: "values" });
  return { engines: made as [Engine, Engine], key: (name: string) => `ts:{${namespace}}:${name}` };
}

describe("the Redis engine's values", () => {
  it("gives each value Redis's own expiry, ttlMs; a counter its window at its first count, never extended", async () => {
    const { engines, key } = await two();
    const [a, b] = engines;
    await a.setValue("code", "sealed", { ttlMs: 60_000 });
    const ttl = await at.raw.pttl(key("v:code"));
    expect(ttl).toBeGreaterThan(50_000);
    expect(ttl).toBeLessThanOrEqual(60_000);
    expect(await at.raw.get(key("v:code"))).toBe("sealed");
    expect(await at.raw.zscore(key("values"), "code")).not.toBeNull();
    // ifAbsent refused: the value and its expiry are as they were.
    await b.setValue("code", "other", { ttlMs: 600_000, ifAbsent: true });
    expect(await at.raw.pttl(key("v:code"))).toBeLessThanOrEqual(ttl);
    await b.setValue("code", "replaced", { ttlMs: 600_000 });
    expect(await at.raw.pttl(key("v:code"))).toBeGreaterThan(60_000);

    expect(await a.countUp("hits", 60_000)).toBe(1);
    const window = await at.raw.pttl(key("n:hits"));
    expect(window).toBeGreaterThan(50_000);
    expect(window).toBeLessThanOrEqual(60_000);
    for (let n = 2; n <= 20; n++) expect(await (n % 2 ? a : b).countUp("hits", 600_000)).toBe(n);
    const after = await at.raw.pttl(key("n:hits"));
    expect(after).toBeGreaterThan(0);
    expect(after).toBeLessThanOrEqual(window);
    expect(await at.raw.get(key("n:hits"))).toBe("20");

    expect(await b.takeValue("code")).toBe("replaced");
    expect(await at.raw.exists(key("v:code"))).toBe(0);
    expect(await at.raw.zscore(key("values"), "code")).toBeNull();
  });

  it("keeps at most maxValues live values over every process, and as many counters: one more is EngineUnavailable", async () => {
    const { engines } = await two({ maxValues: 3, retryAfterSeconds: 7 });
    const [a, b] = engines;
    await a.setValue("1", "v", { ttlMs: 600_000 });
    await b.setValue("2", "v", { ttlMs: 600_000 });
    await a.setValue("3", "v", { ttlMs: 600_000 });
    for (const engine of engines) {
      const full = engine.setValue("4", "v", { ttlMs: 600_000 });
      await expect(full).rejects.toSatisfy(isEngineUnavailable);
      await expect(full).rejects.toMatchObject({
        retryAfterSeconds: 7,
        message: expect.stringMatching(/at most 3 live values/),
      });
    }
    // A live value replaced, or refused with ifAbsent, needs no room.
    expect(await b.setValue("1", "w", { ttlMs: 600_000 })).toBe(true);
    expect(await b.setValue("2", "w", { ttlMs: 600_000, ifAbsent: true })).toBe(false);
    expect(await b.takeValue("2")).toBe("v");
    expect(await a.setValue("4", "v", { ttlMs: 600_000 })).toBe(true);
    // A lapsed value gives its place back: "3", replaced, lapses 200 ms after.
    expect(await a.setValue("3", "w", { ttlMs: 200 })).toBe(true);
    await eventually(
      async () => (await Promise.resolve(b.setValue("5", "v", { ttlMs: 600_000 })).catch(() => false)) === true,
      "the lapsed value's place",
    );
    expect(await a.getValue("3")).toBeUndefined();

    for (const name of ["x", "y", "z"]) await a.countUp(name, 600_000);
    await expect(b.countUp("w", 600_000)).rejects.toSatisfy(isEngineUnavailable);
    expect(await b.countUp("x", 600_000)).toBe(2);
  });

  it("keeps servers' values apart by namespace, and refuses a maxValues that is not a positive integer", async () => {
    const one = await two({}, "one");
    const other = await two({}, "other");
    await one.engines[0].setValue("shared-name", "one's", { ttlMs: 60_000 });
    expect(await other.engines[0].getValue("shared-name")).toBeUndefined();
    expect(await other.engines[1].countUp("shared-name", 60_000)).toBe(1);
    expect(await one.engines[1].countUp("shared-name", 60_000)).toBe(1);
    expect(() => createRedisEngine({ url: at.redis.url, maxValues: 0 })).toThrow(
      /maxValues must be a positive integer, not 0/,
    );
  });
});
