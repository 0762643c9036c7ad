import type { Engine, RunningRequest, SessionLimits, SessionSignal, StoredEvent } from "@toolsmith/core/engine";
import { Heard, ROOMY, recordOf } from "@toolsmith/core/engine-suite";
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createRedisEngine } from "./redis-engine.js";
import { type RedisServer, startRedis } from "./testing/redis-server.js";

// What several processes do to one server's keys at once: each engine here holds its own connections, as a process.
let redis: RedisServer;
let raw: Redis;
beforeAll(async () => {
  redis = await startRedis({ appendonly: false });
  raw = new Redis(redis.url, { lazyConnect: true, protocol: 2 });
  await raw.connect();
});
afterAll(async () => {
  raw.disconnect();
  await redis.stop();
});

const opened: Engine[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((engine) => engine.close()));
});

/** `count` engines of one fresh server, started. */
async function engines(count: number, leaseMs = 600): Promise<{ engines: Engine[]; namespace: string }> {
  const namespace = `races-${crypto.randomUUID()}`;
  const made = Array.from({ length: count }, () => createRedisEngine({ url: redis.url, namespace, leaseMs }));
  opened.push(...made);
  await Promise.all(made.map((engine) => engine.start({ name: namespace })));
  return { engines: made, namespace };
}

/** Every key of a namespace with its time to live (-1: none). */
async function keysOf(namespace: string): Promise<Map<string, number>> {
  const found = new Map<string, number>();
  let cursor = "0";
  do {
    const [next, keys] = await raw.scan(cursor, "MATCH", `ts:{${namespace}}:*`, "COUNT", 1000);
    cursor = next;
    for (const key of keys) found.set(key, await raw.pttl(key));
  } while (cursor !== "0");
  return found;
}

describe("the Redis engine under races between processes", () => {
  it("never opens more sessions than the limits, in all or per caller, however many ask at once", async () => {
    const { engines: all } = await engines(4);
    const limits: SessionLimits = { max: 7, perCaller: 3, idleMs: 60_000 };
    const callers = ["subject a", "subject b", "subject c", undefined];
    const outcomes = await Promise.all(
      Array.from({ length: 80 }, async (_, i) => {
        const caller = callers[i % callers.length];
        const outcome = await (all[i % all.length] as Engine).createSession(recordOf({ caller }), limits);
        return { caller, outcome };
      }),
    );
    const created = outcomes.filter((o) => o.outcome === "created");
    expect(created.length).toBe(7);
    for (const caller of callers.slice(0, 3)) {
      expect(created.filter((o) => o.caller === caller).length).toBeLessThanOrEqual(3);
    }
    expect((await (all[0] as Engine).sessionIds()).length).toBe(7);
  });

  it("gives an orphan to exactly one of three surviving processes", { timeout: 60_000 }, async () => {
    const { engines: all } = await engines(4, 300);
    const [owner, ...others] = all as [Engine, ...Engine[]];
    const { id } = recordOf();
    await owner.createSession(recordOf({ id }), ROOMY);
    const orphans = new Heard<{ node: string; request: RunningRequest }>();
    for (const engine of others) engine.onOrphan((request) => orphans.push({ node: engine.node, request }));
    const left = Array.from({ length: 20 }, (_, i) => ({ session: id, request: `${i}`, stream: `post-${i}` }));
    for (const request of left) await owner.running(request);
    await owner.close();
    await orphans.until((items) => items.length >= 20, "the 20 orphaned requests", 30_000);
    // Each survivor's next signal comes after any claim it made before it (claims are told as they are taken).
    for (const survivor of others) {
      const marker = new Heard<SessionSignal>();
      await survivor.follow(id, marker.push);
      await survivor.signal(id, { type: "taken", stream: survivor.node, holder: survivor.node });
      await marker.until((s) => s.some((x) => x.type === "taken" && x.stream === survivor.node), "the marker");
    }
    expect(orphans.items.map((o) => o.request).sort((x, y) => Number(x.request) - Number(y.request))).toEqual(left);
  });

  it("keeps appends from several processes to one session unique, increasing, and replayed exactly", async () => {
    const { engines: all } = await engines(3);
    const [a] = all as [Engine];
    const { id } = recordOf();
    await a.createSession(recordOf({ id }), ROOMY);
    const heard = new Heard<SessionSignal>();
    await a.follow(id, heard.push);
    const appended = await Promise.all(
      Array.from({ length: 150 }, (_, i) => (all[i % all.length] as Engine).append(id, "get", `event ${i}`)),
    );
    const ids = appended.map((e) => e.id);
    expect(new Set(ids).size).toBe(150);
    const ordered = [...appended].sort((x, y) => compareIds(x.id, y.id));
    await heard.until((s) => s.filter((x) => x.type === "event").length >= 150, "150 events on the follower");
    // The bus tells them in the order the store gave their ids.
    expect(heard.items.flatMap((s) => (s.type === "event" ? [s.event] : []))).toEqual(ordered);
    const first = ordered[0] as StoredEvent;
    for (const engine of all) {
      expect(await engine.replay(id, first.id)).toEqual({ stream: "get", events: ordered.slice(1) });
    }
  });

  it("leaves no key of a session deleted while others append and change it", async () => {
    const { engines: all, namespace } = await engines(3);
    const [a, b, c] = all as [Engine, Engine, Engine];
    for (let round = 0; round < 10; round++) {
      const record = recordOf();
      await a.createSession(record, ROOMY);
      await a.changeSession(record.id, { kind: "subscribe", uri: "file:///x" });
      const writes = Array.from({ length: 30 }, (_, i) =>
        i % 3 === 0
          ? b.changeSession(record.id, { kind: "subscribe", uri: `file:///${i}` })
          : c.append(record.id, `post-${i}`, "x".repeat(1000)),
      );
      const deleted = a.deleteSession(record.id);
      await Promise.all([...writes, deleted]);
      await b.changeSession(record.id, { kind: "subscribe", uri: "file:///late" });
      await c.append(record.id, "get", "late");
      expect(await c.loadSession(record.id)).toBeUndefined();
    }
    const keys = await keysOf(namespace);
    // What may stay: the handle ops and this namespace's leases (each with a time to live).
    for (const [key, ttl] of keys) {
      if (key.endsWith(":ops") || key.endsWith(":nodes")) continue;
      expect({ key, ttl: ttl > 0 }).toEqual({ key, ttl: true });
    }
    expect([...keys.keys()].filter((k) => /:(s|e|sub|u|k):/.test(k))).toEqual([]);
  });

  it("leaves no key without a time to live once its processes stopped, whatever they left running", async () => {
    const { engines: all, namespace } = await engines(2);
    const [a, b] = all as [Engine, Engine];
    const record = recordOf();
    await a.createSession(record, ROOMY);
    await a.changeSession(record.id, { kind: "subscribe", uri: "file:///x" });
    await a.append(record.id, "get", "x");
    await a.running({ session: record.id, request: "1", stream: "post-1" });
    await a.finished(record.id, "1");
    // Left running when its process stopped, and no process left to be given it.
    await b.running({ session: record.id, request: "2", stream: "post-2" });
    await Promise.all(all.map((engine) => engine.close()));
    const keys = await keysOf(namespace);
    expect(keys.size).toBeGreaterThan(0);
    for (const [key, ttl] of keys) expect({ key, ttl: ttl > 0 }).toEqual({ key, ttl: true });
  });

  it("hears every signal after follow settles, however follows and unfollows of others interleave", async () => {
    const { engines: all } = await engines(2);
    const [a, b] = all as [Engine, Engine];
    const { id } = recordOf();
    await a.createSession(recordOf({ id }), ROOMY);
    const steady = new Heard<SessionSignal>();
    await b.follow(id, steady.push);
    const churn = Array.from({ length: 40 }, async (_, i) => {
      const unfollow = await b.follow(id, () => {});
      if (i % 2) await unfollow();
      else void unfollow();
    });
    const sent = Array.from({ length: 40 }, (_, i) => a.append(id, "get", `${i}`));
    await Promise.all([...churn, ...sent]);
    await b.signal(id, { type: "taken", stream: "end", holder: b.node });
    await steady.until((s) => s.some((x) => x.type === "taken"), "the end marker");
    expect(steady.items.filter((s) => s.type === "event").length).toBe(40);
    // After every churning follower left, one more follower hears a new signal exactly once.
    const later = new Heard<SessionSignal>();
    await b.follow(id, later.push);
    await a.append(id, "get", "after");
    await later.until((s) => s.length >= 1, "the event after the churn");
  });
});

/** Stream entry ids ordered as Redis orders them (milliseconds, then sequence). */
function compareIds(x: string, y: string): number {
  const [xm, xs] = x.split("-").map(BigInt) as [bigint, bigint];
  const [ym, ys] = y.split("-").map(BigInt) as [bigint, bigint];
  return xm === ym ? Number(xs - ys) : xm < ym ? -1 : 1;
}
