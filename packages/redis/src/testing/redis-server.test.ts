import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { isAlive } from "../../../../scripts/child-processes.js";
import { defaultRedisBinary, type RedisServer, startRedis } from "./redis-server.js";

// A client that fails at once rather than queueing while the server is away.
const client = (url: string) =>
  new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 0, lazyConnect: true, protocol: 2 });

describe("startRedis", () => {
  const started: RedisServer[] = [];
  afterAll(() => Promise.all(started.map((server) => server.stop())));

  it("runs REDIS_SERVER_PATH, else Debian's /usr/bin/redis-server, else the one on the PATH (as machine-ready.mjs)", () => {
    const chosen = process.env.REDIS_SERVER_PATH;
    delete process.env.REDIS_SERVER_PATH;
    try {
      expect(defaultRedisBinary((path) => path === "/usr/bin/redis-server")).toBe("/usr/bin/redis-server");
      expect(defaultRedisBinary(() => false)).toBe("redis-server");
      process.env.REDIS_SERVER_PATH = "/opt/redis/bin/redis-server";
      expect(defaultRedisBinary(() => true)).toBe("/opt/redis/bin/redis-server");
    } finally {
      if (chosen === undefined) delete process.env.REDIS_SERVER_PATH;
      else process.env.REDIS_SERVER_PATH = chosen;
    }
  });

  it("starts a server on a free port that answers, and stop() ends the process", async () => {
    const server = await startRedis();
    started.push(server);
    const pid = server.pid!;
    expect(isAlive(pid)).toBe(true);
    const redis = client(server.url);
    await redis.connect();
    expect(await redis.ping()).toBe("PONG");
    redis.disconnect();
    await server.stop();
    expect(server.pid).toBeUndefined();
    expect(isAlive(pid)).toBe(false);
  });

  it("keeps what was written across a restart and a kill (the append-only file), on the same port", async () => {
    const server = await startRedis();
    started.push(server);
    const port = server.port;
    const redis = client(server.url);
    await redis.connect();
    await redis.set("kept", "yes");
    redis.disconnect();
    await server.restart();
    expect(server.port).toBe(port);
    const again = client(server.url);
    await again.connect();
    expect(await again.get("kept")).toBe("yes");
    // A fsync of the append-only file before the crash: what a second after the write would have done.
    await again.call("BGREWRITEAOF");
    again.disconnect();
    const pid = server.pid!;
    await server.kill();
    expect(isAlive(pid)).toBe(false);
    await server.restart();
    const third = client(server.url);
    await third.connect();
    expect(await third.get("kept")).toBe("yes");
    third.disconnect();
  });

  it("requires the password it was given, which its URL carries", async () => {
    const server = await startRedis({ password: "s3cret pass/word" });
    started.push(server);
    expect(server.url).toBe(`redis://:${encodeURIComponent("s3cret pass/word")}@127.0.0.1:${server.port}`);
    const redis = client(server.url);
    await redis.connect();
    expect(await redis.ping()).toBe("PONG");
    redis.disconnect();
    // No ready check (an INFO the server would refuse): the PING itself is refused.
    const anonymous = new Redis(server.port, "127.0.0.1", { lazyConnect: true, protocol: 2, enableReadyCheck: false });
    await anonymous.connect();
    await expect(anonymous.ping()).rejects.toThrow(/NOAUTH/);
    anonymous.disconnect();
  });

  it("starts many at once, each on its own port", async () => {
    const servers = await Promise.all([startRedis(), startRedis(), startRedis()]);
    started.push(...servers);
    expect(new Set(servers.map((server) => server.port)).size).toBe(3);
  });
});
