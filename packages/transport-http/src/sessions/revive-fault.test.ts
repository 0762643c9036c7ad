import { createServer } from "@toolsmith/core";
import { type Engine, EngineUnavailable } from "@toolsmith/core/engine";
import { createRedisEngine } from "@toolsmith/redis";
import { expect, it } from "vitest";
import { createHttpHandler, type HttpHandler } from "../doors/http-handler.js";
import { H, openSession, post } from "../exchange/requests.test-util.js";
import { sharedRedis } from "./shared-redis.test-util.js";

// A session opened on one process and first served on another: the second makes its live copy from the record and
// follows the session's channel. The engine failing that follow is an outage (503 + Retry-After), never a 500.

const { redis, engines, handlers } = sharedRedis();

function process_(engine: Engine): HttpHandler {
  engines.push(engine);
  const server = createServer({ name: "revive", version: "1", engine });
  server.tool({ name: "one", description: "One", handler: () => "1" });
  const handle = createHttpHandler(server);
  handlers.push(handle);
  return handle;
}

// An engine whose `follow` fails as an unreachable Redis does, while `state.failing` says so.
function failingFollow(engine: Engine, state: { failing: boolean }): Engine {
  return new Proxy(engine, {
    get(target, property) {
      if (property === "follow") {
        return (...args: Parameters<Engine["follow"]>) => {
          if (state.failing) return Promise.reject(new EngineUnavailable("down", { retryAfterSeconds: 2 }));
          return target.follow(...args);
        };
      }
      const value = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

it("a session revived on another process whose engine fails to follow it is 503 with Retry-After, then served", async () => {
  const namespace = `revive-${crypto.randomUUID()}`;
  const a = process_(createRedisEngine({ url: redis.url, namespace }));
  const state = { failing: true };
  const inner = createRedisEngine({ url: redis.url, namespace });
  engines.push(inner);
  const b = process_(failingFollow(inner, state));
  const session = await openSession(a);
  const call = { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "one", arguments: {} } };
  const refused = await b(post(call, { ...H, "mcp-session-id": session }));
  expect(refused.status).toBe(503);
  expect(refused.headers.get("retry-after")).toBe("2");
  expect(await refused.json()).toMatchObject({
    id: 7,
    error: {
      code: -32000,
      message: "Service unavailable: the server's state store cannot be reached; try again in 2 s",
      data: { retryAfterSeconds: 2 },
    },
  });
  state.failing = false;
  const served = await b(post(call, { ...H, "mcp-session-id": session }));
  expect(served.status).toBe(200);
});
