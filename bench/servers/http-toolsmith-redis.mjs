import { createServer } from "@toolsmith/core";
import { z } from "zod";
// Not declared dependencies of the bench (that would touch the lockfile): the built packages, by path.
import { createRedisEngine } from "../../packages/redis/dist/index.js";
import { listen } from "../../packages/transport-http/dist/index.js";

// http-toolsmith.mjs on the Redis engine: BENCH_REDIS_URL names the Redis (bench/engine.mjs starts one).
const url = process.env.BENCH_REDIS_URL;
if (!url) throw new Error("BENCH_REDIS_URL is not set: run bench/engine.mjs, which starts a redis-server");
const server = createServer({
  name: "bench-toolsmith",
  version: "1.0.0",
  engine: createRedisEngine({ url }),
  stateKey: "bench-state-key-shared-by-every-process-0123456789",
});
server.tool({
  name: "add",
  description: "Add two numbers",
  input: { a: z.number(), b: z.number() },
  handler: ({ a, b }) => a + b,
});
const at = process.argv.indexOf("--port");
const port = Number(at > 0 ? process.argv[at + 1] : (process.env.PORT ?? 0));
await listen(server, { port, host: "127.0.0.1", log: process.stdout });
