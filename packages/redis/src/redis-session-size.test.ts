import { type Engine, SESSION_BOUNDS } from "@toolsmith/core/engine";
import { ROOMY, recordOf } from "@toolsmith/core/engine-suite";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run } from "./client.js";
import { createRedisEngine } from "./redis-engine.js";
import * as scripts from "./session-scripts.js";
import { type RedisServer, startRedis } from "./testing/redis-server.js";

// Issue 24: one session's 1,500 subscriptions of 8 KiB made every load of it carry them all, and filled Redis. What a
// load moves, and what a session's keys hold, must not grow with what its client subscribes to or declares.
let redis: RedisServer;
let raw: Redis;
let engine: Engine;
const PREFIX = "ts:{sizes}:";

beforeAll(async () => {
  redis = await startRedis({ appendonly: false });
  raw = new Redis(redis.url, { lazyConnect: true, protocol: 2 });
  await raw.connect();
  engine = createRedisEngine({ url: redis.url, namespace: "sizes" });
  await engine.start({ name: "sizes" });
});
afterAll(async () => {
  await engine.close();
  raw.disconnect();
  await redis.stop();
});

/** The bytes the load script answers for a session: what every handshake-era request of it moves. */
async function loadReplyBytes(id: string): Promise<number> {
  return JSON.stringify(await run(raw, scripts.LOAD, PREFIX, [60_000, id])).length;
}

/** What Redis spends on the keys named, in bytes (MEMORY USAGE, every element sampled). */
async function memoryOf(keys: readonly string[]): Promise<number> {
  let total = 0;
  for (const key of keys) total += Number(await raw.call("MEMORY", "USAGE", key, "SAMPLES", "0"));
  return total;
}

const uriOf = (n: number, bytes: number) => `file:///${n}/`.padEnd(bytes, "x");
// What docs/scale-out.md promises one session's subscriptions take of Redis at most (measured: see there).
const SUBSCRIPTIONS_MEMORY = 192 * 1024;

describe("what a session costs in Redis", () => {
  it("a load moves the same bytes however much the session subscribed to; its subscriptions stop at the bounds", async () => {
    const record = recordOf();
    await engine.createSession(record, ROOMY);
    const before = await loadReplyBytes(record.id);
    const { subscriptionUriBytes, subscriptionBytes } = SESSION_BOUNDS;
    const held = Math.floor(subscriptionBytes / subscriptionUriBytes);
    for (let n = 0; n < held; n++) {
      await engine.changeSession(record.id, { kind: "subscribe", uri: uriOf(n, subscriptionUriBytes) });
    }
    expect(await loadReplyBytes(record.id)).toBe(before);
    expect(before).toBeLessThan(1000);
    const past = engine.changeSession(record.id, { kind: "subscribe", uri: uriOf(held, subscriptionUriBytes) });
    await expect(past).rejects.toThrow(/Too many resource subscriptions/);
    const keys = [
      `${PREFIX}sub:${record.id}`,
      ...Array.from({ length: held }, (_, n) => `${PREFIX}u:${uriOf(n, 2048)}`),
    ];
    expect(await memoryOf(keys)).toBeLessThan(SUBSCRIPTIONS_MEMORY);
  });

  it("the most subscriptions, each of its share of the bytes (the costliest shape), stay within the same size", async () => {
    const record = recordOf();
    await engine.createSession(record, ROOMY);
    const { subscriptions, subscriptionBytes } = SESSION_BOUNDS;
    const uris = Array.from({ length: subscriptions }, (_, n) => uriOf(n, subscriptionBytes / subscriptions));
    await Promise.all(uris.map((uri) => engine.changeSession(record.id, { kind: "subscribe", uri })));
    await expect(engine.changeSession(record.id, { kind: "subscribe", uri: "f:one-more" })).rejects.toThrow(/Too many/);
    const bytes = await memoryOf([`${PREFIX}sub:${record.id}`, ...uris.map((uri) => `${PREFIX}u:${uri}`)]);
    expect(bytes).toBeLessThan(SUBSCRIPTIONS_MEMORY);
  });

  it("a session whose client declared megabytes keeps a record of a few KiB", async () => {
    // The costliest shape: capabilities that fill their bound, info of three-byte characters at its length.
    const wide = "中".repeat(1024 * 1024);
    const many = Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`k${i}`, "v".repeat(20)]));
    const record = recordOf({
      clientInfo: { name: wide, version: wide, title: wide },
      clientCapabilities: { elicitation: { url: {} }, ...many },
    });
    await engine.createSession(record, ROOMY);
    // Measured 7.7 KB: 4 KiB of capabilities, 2.3 KB of info (name, version, title), the principal and the hash.
    expect(await memoryOf([`${PREFIX}s:${record.id}`])).toBeLessThan(10 * 1024);
    const { capabilitiesBytes, clientInfoChars } = SESSION_BOUNDS;
    expect(await loadReplyBytes(record.id)).toBeLessThan(capabilitiesBytes + 3 * clientInfoChars + 1024);
  });

  it("a session kept by an earlier version (no byte count, subscriptions already held) never gains room past the bound", async () => {
    // As before issue 24 (or a process not yet upgraded) left it: subscriptions in sub:<id>, no sb in the record.
    const record = recordOf();
    await engine.createSession(record, ROOMY);
    const old = Array.from({ length: 8 }, (_, n) => uriOf(n, 8192));
    await raw.zadd(`${PREFIX}sub:${record.id}`, ...old.flatMap((uri, n) => [n + 1, uri]));
    await raw.hdel(`${PREFIX}s:${record.id}`, "sb");
    expect((await engine.loadSession(record.id))?.id).toBe(record.id);
    for (const uri of old) await engine.changeSession(record.id, { kind: "unsubscribe", uri });
    const { subscriptionUriBytes, subscriptionBytes } = SESSION_BOUNDS;
    let held = 0;
    for (let n = 100; n < 200; n++) {
      try {
        await engine.changeSession(record.id, { kind: "subscribe", uri: uriOf(n, subscriptionUriBytes) });
      } catch {
        break;
      }
      held++;
    }
    expect(held * subscriptionUriBytes).toBeLessThanOrEqual(subscriptionBytes);
  });
});
