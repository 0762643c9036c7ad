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
