import { createServer } from "@toolsmith/core";
import { z } from "zod";
// Not declared dependencies of the bench (that would touch the lockfile): the built packages, by path.
import { listen } from "../../packages/transport-http/dist/index.js";

// One optional task tool that answers at once, for bench/tasks.mjs: on the memory engine, or with `--redis` on the
// Redis engine at BENCH_REDIS_URL. Port from `--port N` or PORT (0 picks a free one); listen() says the URL.
const redis = process.argv.includes("--redis");
const url = process.env.BENCH_REDIS_URL;
if (redis && !url) throw new Error("BENCH_REDIS_URL is not set: run bench/tasks.mjs, which starts a redis-server");
const engine = redis ? { engine: (await import("../../packages/redis/dist/index.js")).createRedisEngine({ url }) } : {};
const server = createServer({
  name: "bench-tasks",
  version: "1.0.0",
  ...engine,
  stateKey: "bench-state-key-shared-by-every-process-0123456789",
  // The load generator is one unauthenticated caller making every task: the per-caller bounds (100 running, 1000
  // kept, on by default) are raised so it measures the engine, not the refusal.
  tasks: { maxPerCaller: 1_000_000, maxStoredPerCaller: 10_000_000 },
});
server.tool({
  name: "quick",
  description: "Add one, as a task when the client declares the extension",
  input: { a: z.number() },
  task: "optional",
  handler: ({ a }) => a + 1,
});
const at = process.argv.indexOf("--port");
const port = Number(at > 0 ? process.argv[at + 1] : (process.env.PORT ?? 0));
await listen(server, { port, host: "127.0.0.1", log: process.stdout });
