import { createServer, type LogLevel } from "@toolsmith/core";
import { EngineUnavailable } from "@toolsmith/core/engine";
import { ROOMY, recordOf } from "@toolsmith/core/engine-suite";
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createRedisEngine } from "./redis-engine.js";
import { type RedisServer, startRedis } from "./testing/redis-server.js";

// Issue 24, item 3: under volatile-lru (a common managed-Redis default) a full Redis evicted other users' sessions,
// tasks and every process's leases. The engine reads maxmemory-policy when it starts: it refuses a Redis that may
// evict its keys (unless allowEviction), says so on the server's log when allowed or unknown, and is quiet otherwise.

const servers: Record<string, RedisServer> = {};
const engines: { close(): unknown }[] = [];
beforeAll(async () => {
  const [evicting, unlimited, safe] = await Promise.all([
    startRedis({ appendonly: false, args: ["--maxmemory", "64mb", "--maxmemory-policy", "volatile-lru"] }),
    startRedis({ appendonly: false, args: ["--maxmemory-policy", "allkeys-lru"] }),
    startRedis({ appendonly: false, args: ["--maxmemory", "64mb", "--maxmemory-policy", "noeviction"] }),
  ]);
  Object.assign(servers, { evicting, unlimited, safe });
});
afterEach(async () => {
  await Promise.all(engines.splice(0).map((engine) => engine.close()));
});
afterAll(() => Promise.all(Object.values(servers).map((server) => server.stop())));

/** A server on a Redis engine for `url`, and what its logger heard. */
function serverOn(url: string, options: { allowEviction?: boolean } = {}) {
  const logged: { level: LogLevel; message: string }[] = [];
  const engine = createRedisEngine({ url, ...options });
  engines.push(engine);
  const server = createServer({ name: "eviction", version: "1", engine, logger: (entry) => logged.push(entry) });
  return { server, engine, logged };
}

describe("the Redis engine checks maxmemory-policy when it starts", () => {
  it("refuses a Redis that evicts when full (volatile-lru, maxmemory 64mb), naming the fix; nothing is kept", async () => {
    const { server, engine, logged } = serverOn(servers.evicting!.url);
    const refused = await server.startEngine()?.then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(Error);
    expect(refused).not.toBeInstanceOf(EngineUnavailable);
    expect((refused as Error).message).toBe(
      `Refusing to start the Redis engine: Redis at ${servers.evicting!.url} evicts keys when full (maxmemory-policy volatile-lru, maxmemory 67108864 bytes), and would lose sessions, tasks and leases (requests in flight never answered). set maxmemory-policy noeviction (see docs/scale-out.md, "Configuring Redis"), or pass allowEviction: true to accept the loss`,
    );
    expect(logged).toEqual([]);
    await expect(engine.createSession(recordOf(), ROOMY)).rejects.toThrow(/Start the Redis engine first/);
    const raw = new Redis(servers.evicting!.url, { lazyConnect: true, protocol: 2 });
    await raw.connect();
    expect(await raw.keys("*")).toEqual([]);
    raw.disconnect();
  });

  it("with allowEviction it starts, and says so once on the server's log at warning", async () => {
    const { server, engine, logged } = serverOn(servers.evicting!.url, { allowEviction: true });
    await server.startEngine();
    expect(logged).toHaveLength(1);
    expect(logged[0]?.level).toBe("warning");
    expect(logged[0]?.message).toMatch(
      /evicts keys when full \(maxmemory-policy volatile-lru.*allowed by allowEviction/,
    );
    expect(await engine.createSession(recordOf(), ROOMY)).toBe("created");
  });

  it("warns of an evicting policy without a maxmemory yet (nothing is evicted until one is set)", async () => {
    const { server, logged } = serverOn(servers.unlimited!.url);
    await server.startEngine();
    expect(logged.map((entry) => entry.level)).toEqual(["warning"]);
    expect(logged[0]?.message).toMatch(/maxmemory-policy allkeys-lru and no maxmemory yet/);
  });

  it("starts quietly on noeviction", async () => {
    const { server, engine, logged } = serverOn(servers.safe!.url);
    await server.startEngine();
    expect(logged).toEqual([]);
    expect(await engine.createSession(recordOf(), ROOMY)).toBe("created");
  });

  it("carries on with a note when CONFIG is refused (managed Redis), as for a user without the right", async () => {
    const admin = new Redis(servers.safe!.url, { lazyConnect: true, protocol: 2 });
    await admin.connect();
    await admin.call("ACL", "SETUSER", "app", "on", ">app-password", "~*", "&*", "+@all", "-config");
    admin.disconnect();
    const url = `redis://app:app-password@127.0.0.1:${servers.safe!.port}`;
    const { server, engine, logged } = serverOn(url);
    await server.startEngine();
    expect(logged.map((entry) => entry.level)).toEqual(["warning"]);
    expect(logged[0]?.message).toMatch(/could not read maxmemory-policy at redis:\/\/\*\*\*@127\.0\.0\.1:\d+ \(NOPERM/);
    expect(logged[0]?.message).not.toContain("app-password");
    expect(await engine.createSession(recordOf(), ROOMY)).toBe("created");
  });
});
