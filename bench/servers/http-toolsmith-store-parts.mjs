import { createServer } from "@toolsmith/core";
import { z } from "zod";
// Not declared dependencies of the bench (that would touch the lockfile): the built packages, by path.
import { createRedisEngine } from "../../packages/redis/dist/index.js";
import { listen } from "../../packages/transport-http/dist/index.js";
import { benchPort } from "./http-toolsmith-parts.mjs";

// What the store bench's servers share (bench/store.mjs): the `add` tool the load generator calls, which also reads
// and updates one counter per call, and the engine each runs on.

/** How many counters the calls spread over: call `a` counts in `counter-<a % KEYS>`. */
export const KEYS = 50;

/** The Redis at BENCH_REDIS_URL (bench/store.mjs starts one). */
export function benchRedisUrl() {
  const url = process.env.BENCH_REDIS_URL;
  if (!url) throw new Error("BENCH_REDIS_URL is not set: run bench/store.mjs, which starts a redis-server");
  return url;
}

/** What the store's servers do per call: read the key, then update it atomically (one more). */
export async function countInStore(ctx, key) {
  await ctx.store.get(key);
  await ctx.store.update(key, (old) => (old ?? 0) + 1);
}

/**
 * A server with the `add` tool that awaits `count(ctx, key)` before it answers `a + b`, listening on the bench's
 * port; on the Redis engine at BENCH_REDIS_URL when `redis`, else on the memory engine (the default).
 */
export async function serveCounter({ redis }, count) {
  const server = createServer({
    name: "bench-store",
    version: "1.0.0",
    // A namespace per process: the sessions earlier rounds opened in the same Redis (50 per run, never ended) do not
    // count against this one's bound of open sessions per caller.
    ...(redis ? { engine: createRedisEngine({ url: benchRedisUrl(), namespace: `bench-store-${process.pid}` }) } : {}),
    stateKey: "bench-state-key-shared-by-every-process-0123456789",
  });
  server.tool({
    name: "add",
    description: "Add two numbers, and count the call",
    input: { a: z.number(), b: z.number() },
    handler: async ({ a, b }, ctx) => {
      await count(ctx, `counter-${a % KEYS}`);
      return a + b;
    },
  });
  await listen(server, { port: benchPort(), host: "127.0.0.1", log: process.stdout });
}
