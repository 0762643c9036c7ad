import { Client, SdkHttpError, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createServer } from "@toolsmith/core";
import { createRedisEngine } from "@toolsmith/redis";
import { describe, expect, it } from "vitest";
import { createHttpHandler, type HttpHandler } from "../doors/http-handler.js";
import { sharedRedis } from "./shared-redis.test-util.js";

// Two processes of one server on one Redis engine, the official client in front of a balancer that sends each request
// where the test says: A begins close() while the session it served goes on on B.

const { redis, engines, handlers } = sharedRedis();

function process_(namespace: string): HttpHandler {
  const engine = createRedisEngine({ url: redis.url, namespace });
  engines.push(engine);
  const server = createServer({ name: "draining", version: "1", engine });
  server.tool({ name: "where", description: "Answers", handler: () => "here" });
  const handle = createHttpHandler(server);
  handlers.push(handle);
  return handle;
}

describe("a process draining while another serves the same session", () => {
  it("/healthz says A is closing, B is not; the official client sees A's 503 as an SdkHttpError (it does not retry); its next request, on B, goes on", async () => {
    const namespace = `draining-${Date.now()}`;
    const a = process_(namespace);
    const b = process_(namespace);
    let target = a;
    const client = new Client({ name: "draining", version: "1" }, { versionNegotiation: { mode: "legacy" } });
    const fetch = (url: string | URL, init?: RequestInit) => target(new Request(url, init));
    await client.connect(new StreamableHTTPClientTransport(new URL("http://127.0.0.1:3000/mcp"), { fetch }));
    expect(await client.callTool({ name: "where", arguments: {} })).toMatchObject({ content: [{ text: "here" }] });
    a.close();
    // The balancer's probe takes A out of rotation; B stays in.
    const health = async (handle: HttpHandler) => {
      const probed = await handle(new Request("http://10.0.0.1/healthz"));
      return [probed.status, await probed.text()];
    };
    expect([await health(a), await health(b)]).toEqual([
      [503, "closing\n"],
      [200, "ok\n"],
    ]);
    const refused = await client.callTool({ name: "where", arguments: {} }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(SdkHttpError);
    expect((refused as SdkHttpError).data).toMatchObject({ status: 503 });
    target = b;
    expect(await client.callTool({ name: "where", arguments: {} })).toMatchObject({ content: [{ text: "here" }] });
    await client.close();
  });
});
