import type { Engine, RecordStore } from "@toolsmith/core/engine";
import { engineSuite, recordStoreSuite } from "@toolsmith/core/engine-suite";
import { afterAll, beforeAll } from "vitest";
import { createRedisEngine } from "./redis-engine.js";
import { type RedisServer, startRedis } from "./testing/redis-server.js";

// The shared suite against two Redis engines on one redis-server, as two processes of one server would hold them.
let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(() => redis.stop());

async function two() {
  // A short lease: an orphan is noticed within about a second.
  // Each plays the RecordStore role (Engine does not name it yet).
  const engines = [0, 1].map(() => createRedisEngine({ url: redis.url, leaseMs: 600 }) as Engine & RecordStore);
  return { engines, cleanup: async () => void (await Promise.all(engines.map((engine) => engine.close()))) };
}

engineSuite("redis", two);
// The records' suite apart until engineSuite runs it (once Engine has the RecordStore role).
recordStoreSuite("redis", two);
