import { createRequire } from "node:module";
import { benchRedisUrl, serveCounter } from "./http-toolsmith-store-parts.mjs";

// The store bench's floor: Toolsmith on the Redis engine, as http-toolsmith-store-redis.mjs, but its tool counts with
// a bare ioredis GET then SET on a client of its own (on the same Redis; not atomic, no version, no JSON, no checks).
// ioredis is @toolsmith/redis's dependency, not the bench's (that would touch the lockfile): resolved from there.
const Redis = createRequire(new URL("../../packages/redis/package.json", import.meta.url))("ioredis");
// RESP2, as the engine's own clients speak it (ioredis 6 defaults to RESP3).
const redis = new Redis(benchRedisUrl(), { protocol: 2, maxRetriesPerRequest: 1, commandTimeout: 2000 });
await redis.ping();
await serveCounter({ redis: true }, async (_ctx, key) => {
  const old = await redis.get(`bench:${key}`);
  await redis.set(`bench:${key}`, String(Number(old ?? 0) + 1));
});
