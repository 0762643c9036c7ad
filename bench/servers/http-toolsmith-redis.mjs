import { createServer } from "@toolsmith/core";
// Not declared dependencies of the bench (that would touch the lockfile): the built packages, by path.
import { createRedisEngine } from "../../packages/redis/dist/index.js";
import { listen } from "../../packages/transport-http/dist/index.js";
import { benchPort, withAddTool } from "./http-toolsmith-parts.mjs";

// http-toolsmith.mjs on the Redis engine: BENCH_REDIS_URL names the Redis (bench/engine.mjs starts one).
const url = process.env.BENCH_REDIS_URL;
if (!url) throw new Error("BENCH_REDIS_URL is not set: run bench/engine.mjs, which starts a redis-server");
const server = createServer({
  name: "bench-toolsmith",
  version: "1.0.0",
  engine: createRedisEngine({ url }),
  stateKey: "bench-state-key-shared-by-every-process-0123456789",
});
withAddTool(server);
await listen(server, { port: benchPort(), host: "127.0.0.1", log: process.stdout });
