import type { Engine } from "@toolsmith/core/engine";
import { eventually, taskOf } from "@toolsmith/core/engine-suite";
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createRedisEngine } from "./redis-engine.js";
import { type RedisServer, startRedis } from "./testing/redis-server.js";

// What a task holds in Redis: one hash under the namespace, expiring after its TTL (never before), or never.
let redis: RedisServer;
let raw: Redis;
beforeAll(async () => {
  redis = await startRedis();
  raw = new Redis(redis.url, { protocol: 2 });
});
afterAll(async () => {
  raw.disconnect();
  await redis.stop();
});

const opened: Engine[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((engine) => engine.close()));
});

async function engine(): Promise<{ engine: Engine; prefix: string }> {
  const namespace = `tasks-${crypto.randomUUID()}`;
  const made = createRedisEngine({ url: redis.url, namespace });
  opened.push(made);
  await made.start({ name: namespace });
  return { engine: made, prefix: `ts:{${namespace}}:` };
}

describe("a task in Redis", () => {
  it("is one hash, expiring no sooner than its TTL and within its TTL plus the grace", async () => {
    const { engine: e, prefix } = await engine();
    const task = taskOf({ ttlMs: 120_000 });
    await e.createTask(task);
    const pttl = await raw.pttl(`${prefix}t:${task.id}`);
    const left = task.createdAt + 120_000 - Date.now();
    expect(pttl).toBeGreaterThanOrEqual(left);
    expect(pttl).toBeLessThanOrEqual(120_000 + 60_000);
    const keys = await raw.keys(`${prefix}*`);
    expect(keys.filter((key) => key.includes(task.id))).toEqual([`${prefix}t:${task.id}`]);
    // A change keeps the expiry it had (it counts from createdAt, not from the last change).
    await e.changeTask(task.id, { kind: "message", statusMessage: "1/2" });
    expect(await raw.pttl(`${prefix}t:${task.id}`)).toBeLessThanOrEqual(pttl);
  });

  it("is counted in its caller's set and in all, which expire with their last member (never while one has ttlMs null)", async () => {
    const { engine: e, prefix } = await engine();
    const limit = { max: 10, perCaller: 5, caller: "subject ada" };
    const owned = `${prefix}to:${JSON.stringify(limit.caller)}`;
    const later = taskOf({ owner: "ada", ttlMs: 120_000 });
    await e.createTask(taskOf({ owner: "ada", ttlMs: 60_000 }), limit);
    await e.createTask(later, limit);
    for (const counted of [owned, `${prefix}tasks`]) {
      expect(await raw.zcard(counted)).toBe(2);
      const pttl = await raw.pttl(counted);
      expect(pttl).toBeGreaterThan(60_000);
      expect(pttl).toBeLessThanOrEqual(120_001);
    }
    await e.createTask(taskOf({ owner: "ada", ttlMs: null }), limit);
    expect(await raw.pttl(owned)).toBe(-1);
    expect(await raw.pttl(`${prefix}tasks`)).toBe(-1);
    // Without a limit a task is counted nowhere.
    const before = await raw.keys(`${prefix}to:*`);
    await e.createTask(taskOf({ owner: undefined }));
    expect(await raw.keys(`${prefix}to:*`)).toEqual(before);
    expect(await raw.zcard(`${prefix}tasks`)).toBe(3);
  });

  it("never expires with ttlMs null", async () => {
    const { engine: e, prefix } = await engine();
    const task = taskOf({ ttlMs: null });
    await e.createTask(task);
    await e.changeTask(task.id, { kind: "complete", result: { content: [] } });
    expect(await raw.pttl(`${prefix}t:${task.id}`)).toBe(-1);
  });

  it("is gone from Redis (not only from loads) once its TTL and grace have passed", async () => {
    const { engine: e, prefix } = await engine();
    const ttlMs = 300;
    const task = taskOf({ ttlMs });
    await e.createTask(task);
    await eventually(
      async () => (await raw.exists(`${prefix}t:${task.id}`)) === 0,
      `the key of a task with a ${ttlMs} ms TTL to go`,
    );
    expect(Date.now()).toBeGreaterThan(task.createdAt + ttlMs);
  });

  it("publishes on a channel of its own under the namespace", async () => {
    const { engine: e, prefix } = await engine();
    const task = taskOf();
    await e.createTask(task);
    await e.followTask(task.id, () => {});
    expect(await raw.pubsub("CHANNELS", `${prefix}tc:*`)).toEqual([`${prefix}tc:${task.id}`]);
  });
});
