import { createServer } from "@toolsmith/core";
import type { Connection } from "@toolsmith/core/transport";
import { createRedisEngine } from "@toolsmith/redis";
import { expect, it, vi } from "vitest";
import { until } from "../../../../scripts/wait.js";
import { createHttpHandler, type HttpHandler } from "../doors/http-handler.js";
import { get, H, initialize, post } from "../exchange/requests.test-util.js";
import { sharedRedis } from "./shared-redis.test-util.js";

// A session's state has one authority, its engine record, and one view per process, its live connection (decision
// 0007): what another process kept of it (its notifications/initialized, its log level) reaches this process's
// connection from the record it loads, whether for a request or for the sweep of a GET stream held here.

const { redis, engines, handlers } = sharedRedis();

// One process; `connections`: every connection its server made.
function process_(namespace: string, sessionIdleMs?: number): { handle: HttpHandler; connections: Connection[] } {
  const engine = createRedisEngine({ url: redis.url, namespace });
  engines.push(engine);
  const server = createServer({ name: "view", version: "1", engine });
  const connect = server.connect.bind(server);
  const connections: Connection[] = [];
  vi.spyOn(server, "connect").mockImplementation((options) => {
    const connection = connect(options);
    connections.push(connection);
    return connection;
  });
  const handle = createHttpHandler(server, sessionIdleMs === undefined ? {} : { sessionIdleMs });
  handlers.push(handle);
  return { handle, connections };
}

const INITIALIZED = { jsonrpc: "2.0", method: "notifications/initialized" };

it("a session initialized on B is in operation on A, which served its initialize, from A's next request", async () => {
  const namespace = `view-${crypto.randomUUID()}`;
  const a = process_(namespace);
  const b = process_(namespace);
  const opened = await a.handle(post(initialize(), H));
  const headers = { ...H, "mcp-session-id": opened.headers.get("mcp-session-id") as string };
  const [connection] = a.connections as [Connection];
  expect(connection.phase).toBe("initialization");
  expect((await b.handle(post(INITIALIZED, headers))).status).toBe(202);
  expect((await a.handle(post({ jsonrpc: "2.0", id: 2, method: "ping" }, headers))).status).toBe(200);
  expect(connection.phase).toBe("operation");
});

it("a session initialized on B is in operation on A, which holds its GET stream, by A's sweep alone", async () => {
  const namespace = `view-${crypto.randomUUID()}`;
  // The sweep of a held GET stream comes every half idle time.
  const a = process_(namespace, 1000);
  const b = process_(namespace);
  const opened = await a.handle(post(initialize(), H));
  const session = opened.headers.get("mcp-session-id") as string;
  const stream = await a.handle(get({ accept: "text/event-stream", "mcp-session-id": session }));
  expect(stream.status).toBe(200);
  const [connection] = a.connections as [Connection];
  expect((await b.handle(post(INITIALIZED, { ...H, "mcp-session-id": session }))).status).toBe(202);
  await until(() => connection.phase === "operation", "A's sweep to take in the record B changed", 30_000);
  await stream.body?.cancel();
});
