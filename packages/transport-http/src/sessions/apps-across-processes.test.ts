import { createServer } from "@toolsmith/core";
import { createRedisEngine } from "@toolsmith/redis";
import { describe, expect, it } from "vitest";
import { createHttpHandler, type HttpHandler } from "../doors/http-handler.js";
import { get, H, headers2026, initialize, META, post } from "../exchange/requests.test-util.js";
import { sharedRedis } from "./shared-redis.test-util.js";

// MCP Apps on two processes of one server (one Redis namespace): a tool disabled on A hides its app on B too.

const { redis, engines, handlers } = sharedRedis();
let namespaces = 0;

const URI = "ui://chart/app.html";

function process_(namespace: string) {
  const engine = createRedisEngine({ url: redis.url, namespace });
  engines.push(engine);
  const server = createServer({ name: "apps-across", version: "1", engine });
  server.tool({
    name: "chart",
    description: "Draws",
    ui: { html: "<!doctype html><p>chart</p>" },
    handler: () => "ok",
  });
  server.tool({ name: "other", description: "Another", handler: () => "other" });
  server.resource({ uri: "note://one", handler: () => "one" });
  const handle = createHttpHandler(server);
  handlers.push(handle);
  return { handle, server };
}

function pair() {
  const namespace = `apps-across-${++namespaces}-${Date.now()}`;
  return [process_(namespace), process_(namespace)] as const;
}

function reading(response: Response) {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = "";
  return {
    async until(part: string, times = 1): Promise<string> {
      while (text.split(part).length - 1 < times) {
        const { value, done } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
      }
      return text;
    },
    cancel: () => reader.cancel(),
  };
}

async function open(handle: HttpHandler): Promise<string> {
  const response = await handle(post(initialize(1, "2025-11-25"), H));
  const session = response.headers.get("mcp-session-id") as string;
  await handle(post({ jsonrpc: "2.0", method: "notifications/initialized" }, { ...H, "mcp-session-id": session }));
  return session;
}

const count = (text: string, part: string) => text.split(part).length - 1;

describe("an app across processes", () => {
  it("disable() on A hides the app on B as a missing resource; enable() shows it; a session on B hears each once", async () => {
    const [a, b] = pair();
    await open(a.handle); // A's engine is up: a change made before that is one every process makes alike
    const session = await open(b.handle);
    const headers = { ...H, "mcp-session-id": session };
    const ask = async (id: number, method: string, params?: Record<string, unknown>) =>
      (await (await b.handle(post({ jsonrpc: "2.0", id, method, ...(params ? { params } : {}) }, headers))).json()) as {
        result?: { resources?: { uri: string }[] };
        error?: unknown;
      };
    const missing = await ask(90, "resources/read", { uri: "ui://nothing/app.html" });
    expect((await ask(2, "resources/list")).result?.resources?.map((r) => r.uri)).toContain(URI);
    const stream = reading(await b.handle(get({ accept: "text/event-stream", "mcp-session-id": session })));
    a.server.registered("tool", "chart")?.disable();
    await stream.until("notifications/resources/list_changed");
    expect((await ask(3, "resources/list")).result?.resources?.map((r) => r.uri)).not.toContain(URI);
    const read = await ask(90, "resources/read", { uri: URI });
    expect(JSON.stringify(read).replaceAll(URI, "ui://nothing/app.html")).toBe(JSON.stringify(missing));
    a.server.registered("tool", "chart")?.enable();
    await stream.until("notifications/resources/list_changed", 2);
    // Something after, by which a second copy of either change would have come.
    b.server.resourceUpdated("note://one");
    await b.handle(
      post({ jsonrpc: "2.0", id: 4, method: "resources/subscribe", params: { uri: "note://one" } }, headers),
    );
    a.server.resourceUpdated("note://one");
    const text = await stream.until("notifications/resources/updated");
    await stream.cancel();
    expect(count(text, "notifications/resources/list_changed")).toBe(2);
    expect(count(text, "notifications/tools/list_changed")).toBe(2);
    expect((await ask(5, "resources/list")).result?.resources?.map((r) => r.uri)).toContain(URI);
  });

  it("a 2026-07-28 listen stream on B hears the app's resources/list_changed each time A disables and enables its tool", async () => {
    const [a, b] = pair();
    // Each process's engine is up (a session needs it): a change made before that is one every process makes alike.
    await open(a.handle);
    await open(b.handle);
    const listen = await b.handle(
      post(
        {
          jsonrpc: "2.0",
          id: 7,
          method: "subscriptions/listen",
          params: { notifications: { resourcesListChanged: true, toolsListChanged: true }, _meta: META },
        },
        headers2026("subscriptions/listen"),
      ),
    );
    expect(listen.status).toBe(200);
    const stream = reading(listen);
    await stream.until("notifications/subscriptions/acknowledged");
    a.server.registered("tool", "chart")?.disable();
    await stream.until("notifications/resources/list_changed");
    const read = async (uri: string) =>
      (
        await b.handle(
          post(
            { jsonrpc: "2.0", id: 3, method: "resources/read", params: { uri, _meta: META } },
            headers2026("resources/read", uri),
          ),
        )
      ).text();
    const missing = "ui://nothing/app.html";
    const unknown = await read(missing);
    expect(unknown).toContain("Resource not found");
    expect((await read(URI)).replaceAll(URI, missing)).toBe(unknown);
    a.server.registered("tool", "chart")?.enable();
    await stream.until("notifications/resources/list_changed", 2);
    // Something after, by which a second copy of either change would have come.
    b.server.registered("tool", "other")?.disable();
    const text = await stream.until("notifications/tools/list_changed", 3);
    await stream.cancel();
    expect(count(text, "notifications/resources/list_changed")).toBe(2);
    expect(count(text, "notifications/tools/list_changed")).toBe(3);
    const listed = (await (
      await b.handle(
        post(
          { jsonrpc: "2.0", id: 2, method: "resources/list", params: { _meta: META } },
          headers2026("resources/list"),
        ),
      )
    ).json()) as { result: { resources: { uri: string }[] } };
    expect(listed.result.resources.map((r) => r.uri)).toContain(URI);
  });
});
