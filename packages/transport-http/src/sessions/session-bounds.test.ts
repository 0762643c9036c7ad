import { createServer } from "@toolsmith/core";
import { SESSION_BOUNDS } from "@toolsmith/core/engine";
import { createRedisEngine } from "@toolsmith/redis";
import { describe, expect, it } from "vitest";
import { createHttpHandler, type HttpHandler } from "../doors/http-handler.js";
import { H, initialize, post } from "../exchange/requests.test-util.js";
import { sharedRedis } from "./shared-redis.test-util.js";

// Issue 24, item 1 at small scale: an anonymous session subscribes to ever more long URIs on two processes sharing
// Redis. It is refused at the session's bounds with a JSON-RPC error, and it lives on (what a load of it moves is
// pinned by @toolsmith/redis's redis-session-size test).

const { redis, engines, handlers } = sharedRedis();
let namespaces = 0;

function cluster(): HttpHandler[] {
  const namespace = `bounds-${++namespaces}`;
  return [0, 1].map(() => {
    const engine = createRedisEngine({ url: redis.url, namespace });
    engines.push(engine);
    const server = createServer({ name: "bounds", version: "1", engine });
    server.resource({ uri: "note://one", handler: () => "one" });
    server.tool({
      name: "declared",
      description: "What the session kept of its client's declarations",
      handler: (_args, ctx) => ({
        bytes: JSON.stringify([ctx.clientInfo, ctx.clientCapabilities]).length,
        name: ctx.clientInfo?.name.length,
        elicitation: ctx.clientCapabilities.elicitation,
      }),
    });
    const handle = createHttpHandler(server);
    handlers.push(handle);
    return handle;
  });
}

async function open(handle: HttpHandler): Promise<Record<string, string>> {
  const response = await handle(post(initialize(1, "2025-11-25"), H));
  expect(response.status).toBe(200);
  const headers = { ...H, "mcp-session-id": response.headers.get("mcp-session-id") as string };
  await handle(post({ jsonrpc: "2.0", method: "notifications/initialized" }, headers));
  return headers;
}

async function rpc(handle: HttpHandler, headers: Record<string, string>, id: number, method: string, params = {}) {
  const response = await handle(post({ jsonrpc: "2.0", id, method, params }, headers));
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe("a client's declarations, over HTTP on Redis", () => {
  it("a session declared in megabytes keeps them bounded on every process, with what the server reads of them", async () => {
    const [a, b] = cluster() as [HttpHandler, HttpHandler];
    const capabilities = { junk: "x".repeat(3 * 1024 * 1024), elicitation: { form: {}, url: {} } };
    const message = initialize(1, "2025-11-25", capabilities) as { params: Record<string, unknown> };
    message.params.clientInfo = { name: "n".repeat(100_000), version: "1", description: "d".repeat(100_000) };
    const opened = await a(post(message, H));
    expect(opened.status).toBe(200);
    const headers = { ...H, "mcp-session-id": opened.headers.get("mcp-session-id") as string };
    await a(post({ jsonrpc: "2.0", method: "notifications/initialized" }, headers));
    for (const [id, handle] of [a, b].entries()) {
      const reply = await rpc(handle, headers, 10 + id, "tools/call", { name: "declared" });
      const seen = (reply.body.result as { structuredContent: Record<string, unknown> }).structuredContent;
      expect(seen).toMatchObject({ name: SESSION_BOUNDS.clientInfoChars, elicitation: { form: {}, url: {} } });
      expect(seen.bytes).toBeLessThan(SESSION_BOUNDS.capabilitiesBytes + 1024);
    }
    // What Redis keeps, and every request of the session loads.
    const record = await engines.at(-1)?.loadSession(headers["mcp-session-id"]);
    expect(JSON.stringify(record).length).toBeLessThan(SESSION_BOUNDS.capabilitiesBytes + 1024);
  });
});

describe("one session's subscriptions, over HTTP on Redis", () => {
  it("are refused past the session's bounds, and the session lives on, as does everyone else's", async () => {
    const [a, b] = cluster() as [HttpHandler, HttpHandler];
    const fat = await open(a);
    const innocent = await open(b);
    const { subscriptionUriBytes, subscriptionBytes } = SESSION_BOUNDS;
    const uri = (n: number) => `note://${n}/`.padEnd(subscriptionUriBytes, "x");
    const fit = Math.floor(subscriptionBytes / subscriptionUriBytes);
    for (let n = 0; n < fit; n++) {
      // Spread over both processes, as a client behind a round-robin balancer would.
      const reply = await rpc(n % 2 ? a : b, fat, 10 + n, "resources/subscribe", { uri: uri(n) });
      expect(reply.body.result).toEqual({});
    }
    expect(await rpc(b, fat, 1, "resources/subscribe", { uri: uri(fit) })).toEqual({
      status: 200,
      body: {
        jsonrpc: "2.0",
        id: 1,
        error: {
          code: -32000,
          message: `Too many resource subscriptions on this session (at most ${SESSION_BOUNDS.subscriptions}, with ${subscriptionBytes} bytes of URIs in all); unsubscribe from one first`,
        },
      },
    });
    const long = await rpc(a, fat, 2, "resources/subscribe", { uri: `note://${"x".repeat(8 * 1024)}` });
    expect(long.body.error).toEqual({
      code: -32602,
      message: `Invalid params: uri is longer than ${subscriptionUriBytes} bytes, the most a subscription may name`,
    });
    // The session lives on, on either process, and so does everyone else's.
    for (const handle of [a, b]) expect((await rpc(handle, fat, 3, "ping")).body.result).toEqual({});
    expect((await rpc(a, innocent, 4, "ping")).body.result).toEqual({});
    // Once one is given up there is room again.
    expect((await rpc(a, fat, 5, "resources/unsubscribe", { uri: uri(0) })).body.result).toEqual({});
    expect((await rpc(b, fat, 6, "resources/subscribe", { uri: uri(fit) })).body.result).toEqual({});
  });
});
