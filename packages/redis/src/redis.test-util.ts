import type { Engine } from "@toolsmith/core/engine";
import { Redis } from "ioredis";
import { afterAll, afterEach, beforeAll } from "vitest";
import { type RedisServer, type StartRedisOptions, startRedis } from "./testing/redis-server.js";

/** What a test file's own Redis gives it: the server, a raw client to read keys with, and the engines to close. */
export interface UsedRedis {
  redis: RedisServer;
  raw: Redis;
  readonly engines: Engine[];
}

/**
 * A real redis-server for this test file (started before its tests, stopped after them) and a raw client on it. The
 * engines a test pushes to `engines` are closed after each test (`close: "each"`) or once, after the file.
 */
export function useRedis(options: StartRedisOptions = {}, close: "each" | "all" = "each"): UsedRedis {
  const used = { engines: [] as Engine[] } as unknown as UsedRedis;
  const closeEngines = () => Promise.all(used.engines.splice(0).map((engine) => engine.close()));
  beforeAll(async () => {
    used.redis = await startRedis(options);
    used.raw = new Redis(used.redis.url, { protocol: 2 });
  });
  if (close === "each") afterEach(closeEngines);
  afterAll(async () => {
    await closeEngines();
    used.raw.disconnect();
    await used.redis.stop();
  });
  return used;
}
