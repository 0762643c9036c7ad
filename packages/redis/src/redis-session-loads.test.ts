import { ROOMY, recordOf } from "@toolsmith/core/engine-suite";
import { describe, expect, it } from "vitest";
import { useRedis } from "./redis.test-util.js";
import { createRedisEngine } from "./redis-engine.js";

// The first load of a turn of the event loop goes to Redis at once, the rest of that turn's as one script: each still
// gets its own answer.
const used = useRedis({ appendonly: false });

/** How many scripts Redis has run by EVALSHA so far. */
async function scriptsRun(): Promise<number> {
  const stats = await used.raw.info("commandstats");
  return Number(/cmdstat_evalsha:calls=(\d+)/.exec(stats)?.[1] ?? 0);
}

describe("session loads asked for together", () => {
  it("answer each load as alone, in two scripts: live, unknown, ended, the same id twice", async () => {
    // A long lease: no tick runs a script while the loads are counted.
    const engine = createRedisEngine({ url: used.redis.url, namespace: "loads", leaseMs: 600_000 });
    const other = createRedisEngine({ url: used.redis.url, namespace: "loads", leaseMs: 600_000 });
    used.engines.push(engine, other);
    await Promise.all([engine.start({ name: "loads" }), other.start({ name: "loads" })]);
    const [a, b, ended] = [recordOf(), recordOf(), recordOf()];
    for (const record of [a, b, ended]) await engine.createSession(record, ROOMY);
    await engine.changeSession(b.id, { kind: "logLevel", level: "error" });
    // Ended on another process: this one must not answer it.
    await other.deleteSession(ended.id);

    const before = await scriptsRun();
    const loaded = await Promise.all([a.id, "never", b.id, ended.id, a.id].map((id) => engine.loadSession(id)));
    // The first at once, the four others together.
    expect(await scriptsRun()).toBe(before + 2);
    expect(loaded).toEqual([a, undefined, { ...b, logLevel: "error" }, undefined, a]);
  });

  it("fail every load of the script when Redis does not answer, and the next loads go again", async () => {
    const engine = createRedisEngine({ url: used.redis.url, namespace: "loads", commandTimeoutMs: 200 });
    used.engines.push(engine);
    await engine.start({ name: "loads" });
    const record = recordOf();
    await engine.createSession(record, ROOMY);
    const pid = used.redis.pid as number;
    process.kill(pid, "SIGSTOP");
    let failed: PromiseSettledResult<unknown>[];
    try {
      failed = await Promise.allSettled([engine.loadSession(record.id), engine.loadSession("never")]);
    } finally {
      process.kill(pid, "SIGCONT");
    }
    expect(failed.map((outcome) => outcome.status)).toEqual(["rejected", "rejected"]);
    expect(failed.map((outcome) => (outcome as PromiseRejectedResult).reason.name)).toEqual([
      "EngineUnavailable",
      "EngineUnavailable",
    ]);
    expect(await engine.loadSession(record.id)).toEqual(record);
  });
});

describe("what a process keeps of a session", () => {
  // Two processes of one server: `here` loads (and keeps each session's fixed part), `there` ends or changes it.
  async function pair(idleMs = 60_000) {
    const options = { url: used.redis.url, namespace: `kept-${crypto.randomUUID()}` };
    const [here, there] = [createRedisEngine(options), createRedisEngine(options)];
    used.engines.push(here, there);
    await Promise.all([here.start({ name: "kept" }), there.start({ name: "kept" })]);
    const record = recordOf();
    await there.createSession(record, { ...ROOMY, idleMs });
    expect(await here.loadSession(record.id)).toEqual(record);
    return { here, there, record, key: (type: string) => `ts:{${options.namespace}}:${type}` };
  }

  it("sees a session another process ended, that lapsed, or whose record Redis lost, on its next load", async () => {
    const deleted = await pair();
    expect(await deleted.there.deleteSession(deleted.record.id)).toBe(true);
    expect(await deleted.here.loadSession(deleted.record.id)).toBeUndefined();

    const evicted = await pair();
    await used.raw.del(evicted.key(`s:${evicted.record.id}`));
    expect(await evicted.here.loadSession(evicted.record.id)).toBeUndefined();

    const lapsed = await pair();
    // Its expiry passed (as the sweep of any process would find it).
    await used.raw.zadd(lapsed.key("sessions"), Date.now() - 1000, lapsed.record.id);
    expect(await lapsed.here.loadSession(lapsed.record.id)).toBeUndefined();
  });

  it("sees the log level and initialized another process kept, on its next load", async () => {
    const { here, there, record } = await pair();
    await there.changeSession(record.id, { kind: "initialized" });
    await there.changeSession(record.id, { kind: "logLevel", level: "debug" });
    expect(await here.loadSession(record.id)).toEqual({ ...record, initialized: true, logLevel: "debug" });
    await there.changeSession(record.id, { kind: "logLevel", level: "emergency" });
    expect(await here.loadSession(record.id)).toEqual({ ...record, initialized: true, logLevel: "emergency" });
  });

  it("restarts the idle time once less than the idle time is left, a sixteenth of it further; not on every load", async () => {
    const idleMs = 160_000;
    const { here, record, key } = await pair(idleMs);
    const expiry = async () => Number(await used.raw.zscore(key("sessions"), record.id));
    // As if half the idle time had passed unused: the next load restarts it, a sixteenth of it beyond.
    await used.raw.zadd(key("sessions"), Date.now() + idleMs / 2, record.id);
    await used.raw.pexpire(key(`s:${record.id}`), idleMs / 2);
    const before = Date.now();
    expect(await here.loadSession(record.id)).toEqual(record);
    const renewed = await expiry();
    expect(renewed).toBeGreaterThanOrEqual(before + idleMs + idleMs / 16);
    expect(renewed).toBeLessThanOrEqual(Date.now() + idleMs + idleMs / 16);
    // More than the idle time left: the next loads leave it as it is.
    await here.loadSession(record.id);
    await here.loadSession(record.id);
    expect(await expiry()).toBe(renewed);
    // Its keys outlive the new expiry by the grace.
    expect(await used.raw.pttl(key(`s:${record.id}`))).toBeGreaterThan(idleMs + idleMs / 16);
  });
});
