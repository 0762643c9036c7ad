import { createRedisEngine } from "@toolsmith/redis";
import { type RedisServer, startRedis } from "@toolsmith/redis/testing";
import { type HttpServer, listen } from "@toolsmith/transport-http";
import { afterAll, beforeAll, expect, it } from "vitest";
import { within } from "../../../scripts/wait.js";
import { TravelDesk } from "./travel-desk.js";

// The desk's bookings are in its engine's store: with Redis gone, a call that needs them fails as fast as the
// engine's own calls (its command timeout, 2 s by default), a 503 with Retry-After, where its own ioredis code waited
// for Redis to come back (11.9 s for a 10 s outage).
const COMMAND_TIMEOUT_MS = 500;

let redis: RedisServer;
let http: HttpServer;

beforeAll(async () => {
  redis = await startRedis({ appendonly: false });
  const engine = createRedisEngine({ url: redis.url, commandTimeoutMs: COMMAND_TIMEOUT_MS });
  http = await listen(new TravelDesk({ server: { engine } }), { port: 0, log: null });
});
afterAll(async () => {
  await http?.close();
  await redis?.stop();
});

const listBookings = () =>
  fetch(http.url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/call",
      "mcp-name": "list_bookings",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: {
        name: "list_bookings",
        arguments: {},
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {},
        },
      },
    }),
  });

it("answers list_bookings 503 with Retry-After while Redis is down, within the engine's command timeout", async () => {
  expect((await listBookings()).status).toBe(200);
  await redis.stop();
  const started = performance.now();
  const answer = await within(listBookings(), "list_bookings with Redis down");
  const tookMs = performance.now() - started;
  expect(answer.status).toBe(503);
  expect(answer.headers.get("retry-after")).toMatch(/^\d+$/);
  // The command timeout, plus what a busy machine adds; the old ioredis code took as long as the outage.
  expect(tookMs).toBeLessThan(COMMAND_TIMEOUT_MS + 4000);
  await redis.restart();
});
