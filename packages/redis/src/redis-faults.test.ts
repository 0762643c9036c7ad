import {
  type Engine,
  EngineUnavailable,
  type RecordStore,
  type ServerSignal,
  type SessionSignal,
} from "@toolsmith/core/engine";
import { Heard, ROOMY, recordOf } from "@toolsmith/core/engine-suite";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { within } from "../../../scripts/wait.js";
import { createRedisEngine } from "./redis-engine.js";
import { type RedisServer, startRedis } from "./testing/redis-server.js";

// Redis away (stopped, or frozen mid-connection) and back: every call fails fast and clearly, then all recovers.
const FAIL_WITHIN_MS = 5000;
// What a restarted Redis and a reconnecting client may take on a slow shared machine.
const RECOVERY_DEADLINE_MS = 60_000;

let redis: RedisServer;
type RedisEngine = Engine & RecordStore;
const engines: RedisEngine[] = [];
const opened = async (name: string): Promise<RedisEngine> => {
  const engine = createRedisEngine({ url: redis.url }) as RedisEngine;
  engines.push(engine);
  await engine.start({ name });
  return engine;
};
beforeAll(async () => {
  redis = await startRedis();
});
afterEach(async () => {
  await Promise.all(engines.splice(0).map((engine) => engine.close()));
});
afterAll(() => redis.stop());

/** Each engine method, as a call that needs Redis. */
function everyCall(engine: RedisEngine, id: string): [string, () => unknown][] {
  return [
    ["createSession", () => engine.createSession(recordOf(), ROOMY)],
    ["loadSession", () => engine.loadSession(id)],
    ["changeSession", () => engine.changeSession(id, { kind: "initialized" })],
    ["deleteSession", () => engine.deleteSession(id)],
    ["subscribers", () => engine.subscribers("file:///x")],
    ["sessionIds", () => engine.sessionIds()],
    ["append", () => engine.append(id, "get", "data")],
    ["replay", () => engine.replay(id, "1-0")],
    ["signal", () => engine.signal(id, { type: "taken", stream: "get", holder: engine.node })],
    ["follow", () => engine.follow(`${id}-other`, () => {})],
    ["broadcast", () => engine.broadcast({ type: "resourceUpdated", uri: "file:///x" })],
    ["broadcast a handle op", () => engine.broadcast({ type: "handle", kind: "tools", name: "t", op: "disable" })],
    ["handleOps", () => engine.handleOps()],
    ["running", () => engine.running({ session: id, request: "1", stream: "post-1" })],
    ["finished", () => engine.finished(id, "1")],
    ["setValue", () => engine.setValue(id, "v", { ttlMs: 60_000 })],
    ["setValue ifAbsent", () => engine.setValue(id, "v", { ttlMs: 60_000, ifAbsent: true })],
    ["getValue", () => engine.getValue(id)],
    ["takeValue", () => engine.takeValue(id)],
    ["deleteValue", () => engine.deleteValue(id)],
    ["countUp", () => engine.countUp(id, 60_000)],
    ["readRecord", () => engine.readRecord(id)],
    ["writeRecord", () => engine.writeRecord(id, "v")],
    ["writeRecord ifVersion ttlMs", () => engine.writeRecord(id, "v", { ifVersion: 1, ttlMs: 60_000 })],
    ["deleteRecord", () => engine.deleteRecord(id)],
    ["deleteRecord ifVersion", () => engine.deleteRecord(id, { ifVersion: 1 })],
    ["listRecords", () => engine.listRecords("", { limit: 10 })],
    ["listRecords after", () => engine.listRecords(id, { after: id, limit: 1000 })],
    ["clearRecords", () => engine.clearRecords(id)],
  ];
}

/** Every call rejects with EngineUnavailable, each well within FAIL_WITHIN_MS (measured, not assumed; side by side). */
async function expectEachUnavailable(engine: RedisEngine, id: string): Promise<void> {
  // A hang is what this guards against: the calls get a deadline of their own, far past the bound they must meet.
  const calls = Promise.all(
    everyCall(engine, id).map(async ([name, call]) => {
      const started = performance.now();
      const outcome = await Promise.resolve()
        .then(call)
        .then(
          () => "resolved",
          (error: unknown) => error,
        );
      return { name, outcome, took: performance.now() - started };
    }),
  );
  const outcomes = await within(calls, "every engine call to settle while Redis is away", 6 * FAIL_WITHIN_MS);
  for (const { name, outcome, took } of outcomes) {
    expect(outcome, name).toBeInstanceOf(EngineUnavailable);
    expect((outcome as EngineUnavailable).retryAfterSeconds, name).toBe(2);
    expect(took, `${name} took ${Math.round(took)} ms`).toBeLessThan(FAIL_WITHIN_MS);
  }
}

/** Retry `attempt` (a failure counts as "not yet") until it says yes; fails naming `what` past the deadline. */
async function untilWorks(attempt: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + RECOVERY_DEADLINE_MS;
  for (;;) {
    if (await attempt().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`waited ${RECOVERY_DEADLINE_MS / 1000} s for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe("Redis faults", () => {
  it("stopped: every call rejects with EngineUnavailable within seconds; restarted: sessions, events and the bus are back", async () => {
    const [a, b] = [await opened("faults"), await opened("faults")];
    const record = recordOf();
    await a.createSession(record, ROOMY);
    await a.changeSession(record.id, { kind: "subscribe", uri: "file:///kept" });
    await a.changeSession(record.id, { kind: "initialized" });
    const first = await a.append(record.id, "get", "before the restart 1");
    const second = await a.append(record.id, "get", "before the restart 2");
    await a.setValue("kept", "across the restart", { ttlMs: 600_000 });
    await a.writeRecord("kept", "across the restart");
    const signals = new Heard<SessionSignal>();
    await b.follow(record.id, signals.push);
    const broadcasts = new Heard<ServerSignal>();
    b.onBroadcast(broadcasts.push);

    await redis.stop();
    await expectEachUnavailable(a, record.id);

    await redis.restart();
    // Each engine reconnects on its own schedule: both are waited for.
    for (const engine of [b, a]) {
      await untilWorks(
        async () => (await engine.loadSession(record.id)) !== undefined,
        "the session, loaded by each engine after the restart",
      );
    }
    expect(await a.loadSession(record.id)).toEqual({ ...record, initialized: true });
    expect(await a.subscribers("file:///kept")).toEqual([record.id]);
    expect(await b.replay(record.id, first.id)).toEqual({ stream: "get", events: [second] });
    expect(await b.takeValue("kept")).toBe("across the restart");
    expect(await b.writeRecord("kept", "after it", { ifVersion: 1 })).toBe(2);
    expect(await a.listRecords("", { limit: 10 })).toEqual([{ key: "kept", value: "after it", version: 2 }]);
    // Nobody resubscribes by hand: the engines' subscriber connections did so on reconnecting.
    await untilWorks(async () => {
      await a.broadcast({ type: "resourceUpdated", uri: "file:///after" });
      return broadcasts.items.length > 0;
    }, "a broadcast heard on the other engine after the restart");
    await untilWorks(async () => {
      await a.append(record.id, "get", "after the restart");
      return signals.items.some((s) => s.type === "event" && s.event.data === "after the restart");
    }, "an event signal heard by the other engine's follower after the restart");
    expect(broadcasts.items[0]).toEqual({ type: "resourceUpdated", uri: "file:///after" });
  });

  it("frozen (no answer on an open connection): every call rejects with EngineUnavailable within seconds", async () => {
    const engine = await opened("frozen");
    const record = recordOf();
    await engine.createSession(record, ROOMY);
    const pid = redis.pid!;
    process.kill(pid, "SIGSTOP");
    try {
      await expectEachUnavailable(engine, record.id);
    } finally {
      process.kill(pid, "SIGCONT");
    }
    await untilWorks(async () => (await engine.loadSession(record.id)) !== undefined, "the thawed Redis to answer");
  });

  it("unreachable at start: start rejects with EngineUnavailable within seconds, and may be tried again", async () => {
    await redis.stop();
    const engine = createRedisEngine({ url: redis.url }) as RedisEngine;
    engines.push(engine);
    const started = performance.now();
    await expect(engine.start({ name: "late" })).rejects.toBeInstanceOf(EngineUnavailable);
    expect(performance.now() - started).toBeLessThan(FAIL_WITHIN_MS);
    await redis.restart();
    await engine.start({ name: "late" });
    expect(await engine.sessionIds()).toEqual([]);
  });
});
