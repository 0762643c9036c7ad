import { storeScopePrefix } from "@toolsmith/core/engine";
import { eventually, ROOMY, recordOf } from "@toolsmith/core/engine-suite";
import { describe, expect, it } from "vitest";
import { useRedis } from "./redis.test-util.js";
import { createRedisEngine } from "./redis-engine.js";

const at = useRedis();

// A session's records on Redis (the shared suite checks what any engine promises): deleted in the script that ends
// the session, and, when Redis let the session's keys expire with no process alive to end it, by the next tick of
// any process that comes later, found by an index (`xs`) that outlives them.

function engineOf(namespace: string, leaseMs: number) {
  const engine = createRedisEngine({ url: at.redis.url, namespace, leaseMs });
  at.engines.push(engine);
  return engine;
}

describe("a session's records on Redis", () => {
  it("go with the next tick of a later process when the session's keys expired with no process alive", async () => {
    const namespace = crypto.randomUUID();
    const key = (name: string) => `ts:{${namespace}}:${name}`;
    const first = engineOf(namespace, 3_600_000);
    await first.start({ name: "stray" });
    // An id the scope encodes (so Redis's encoding must be encodeURIComponent's), beside a session that lives on.
    const [gone, lives] = [recordOf({ id: `s é/ü:%41 (${crypto.randomUUID()})` }), recordOf()];
    await first.createSession(gone, { ...ROOMY, idleMs: 1000 });
    await first.createSession(lives, ROOMY);
    const scope = storeScopePrefix("x", gone.id);
    for (const name of ["a", "b", "c"]) await first.writeRecord(scope + name, "v", { session: gone.id });
    await first.writeRecord(`${storeScopePrefix("x", lives.id)}k`, "v", { session: lives.id });
    await first.writeRecord(`${storeScopePrefix("s")}k`, "v");
    await first.close();
    // What Redis's own expiry does a minute (the grace) after the idle time when no process renews or ends them.
    await at.raw.del(key("sessions"), key(`s:${gone.id}`), key(`s:${lives.id}`));
    expect(await at.raw.zcard(key("records"))).toBe(5);

    const later = engineOf(namespace, 300);
    await later.start({ name: "stray" });
    await eventually(
      async () => (await at.raw.exists(...["a", "b", "c"].map((name) => key(`r:${scope}${name}`)))) === 0,
      "a later process's tick to delete the records of the session Redis expired",
    );
    // The other session's come due only once its idle time has passed; the server's store is no session's.
    expect(await at.raw.zrange(key("records"), "0", "-1")).toEqual([
      `${storeScopePrefix("s")}k`,
      `${storeScopePrefix("x", lives.id)}k`,
    ]);
    expect(await at.raw.zrange(key("xs"), "0", "-1")).toEqual([lives.id]);
  });

  it("go in the script that ends the session, and the tick deletes the rest of a large store", async () => {
    const namespace = crypto.randomUUID();
    const key = (name: string) => `ts:{${namespace}}:${name}`;
    const engine = engineOf(namespace, 3_600_000);
    await engine.start({ name: "ended" });
    const [small, large] = [recordOf(), recordOf()];
    for (const record of [small, large]) await engine.createSession(record, ROOMY);
    await engine.writeRecord(`${storeScopePrefix("x", small.id)}k`, "v", { session: small.id });
    const scope = storeScopePrefix("x", large.id);
    for (let n = 0; n < 100; n++) await engine.writeRecord(`${scope}${n}`, "v", { session: large.id });
    expect(await at.raw.zrange(key("xs"), "0", "-1")).toEqual(expect.arrayContaining([small.id, large.id]));
    expect(await engine.deleteSession(small.id)).toBe(true);
    expect(await engine.listRecords(storeScopePrefix("x", small.id), { limit: 10 })).toEqual([]);
    // 64 go with the end; the rest are due at once, for the next tick (an hour away here: none runs).
    await engine.deleteSession(large.id);
    expect(await engine.listRecords(scope, { limit: 1000 })).toHaveLength(36);
    expect(await at.raw.zscore(key("xs"), large.id)).toBe("0");
    const other = engineOf(namespace, 300);
    await other.start({ name: "ended" });
    expect(await engine.listRecords(scope, { limit: 1000 })).toEqual([]);
    expect(await at.raw.exists(key("xs"))).toBe(0);
  });
});
