import { createServer, type Server } from "@toolsmith/core";
import type { Engine } from "@toolsmith/core/engine";
import { createTestClient } from "@toolsmith/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRedisEngine } from "./redis-engine.js";
import { type RedisServer, startRedis } from "./testing/redis-server.js";

// Two processes of one server on one real Redis, through an outage: what each did while Redis was away reaches the
// other once it is back, and their tools/list agree again.

/** Generous: Redis back, both engines reconnected and resumed, their kept ops sent and read back on a slow machine. */
const AGREE_DEADLINE_MS = 30_000;

let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(() => redis.stop());

function app(engine: Engine): Server {
  // What a failed broadcast logs is expected here (a logger keeps it off the console).
  const server = createServer({ name: "resume", version: "1", engine, logger: () => {} });
  for (const name of ["alpha", "beta", "gamma"]) server.tool({ name, description: name, handler: () => name });
  return server;
}

const names = async (server: Server) => (await (await createTestClient(server)).listTools()).map((tool) => tool.name);

/** Until `server`'s tools/list is `expected`, asked again every 100 ms, failing past the named deadline. */
async function untilListed(server: Server, expected: string[], what: string): Promise<void> {
  const deadline = Date.now() + AGREE_DEADLINE_MS;
  let last: string[] = [];
  while (Date.now() < deadline) {
    last = await names(server);
    if (JSON.stringify(last) === JSON.stringify(expected)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${what}: still ${JSON.stringify(last)} after ${AGREE_DEADLINE_MS} ms`);
}

describe("lists that agree across a Redis outage", () => {
  it("a tool disabled on A and one on B while Redis was stopped: once it is back, both lists agree", {
    timeout: 90_000,
  }, async () => {
    const namespace = `resume-${crypto.randomUUID()}`;
    const engines = [1, 2].map(() => createRedisEngine({ url: redis.url, namespace, commandTimeoutMs: 1000 }));
    try {
      const [a, b] = engines.map(app) as [Server, Server];
      await a.startEngine();
      await b.startEngine();
      await redis.stop();
      a.registered("tool", "alpha")?.disable();
      // B's op while A is cut off too: A misses it on the bus, and must catch up.
      b.registered("tool", "gamma")?.disable();
      expect(await names(b)).toEqual(["alpha", "beta"]);
      await redis.restart();
      await untilListed(b, ["beta"], "B's tools/list after Redis came back");
      await untilListed(a, ["beta"], "A's tools/list after Redis came back");
    } finally {
      await Promise.all(engines.map((engine) => engine.close()));
    }
  });
});
