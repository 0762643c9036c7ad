import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { type RedisServer, startRedis } from "@toolsmith/redis/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { firstText } from "../../transports/src/peer.js";
import { RUNTIME_NAMES, runtime } from "./runtimes.js";
import { type RuntimeProcess, serveFixtures } from "./spawn-runtime.js";

// Two processes of one runtime on one Redis (the fixture on the Redis engine): a 2025-11-25 session opened on the
// first (its own server, createHttpHandler) is served by the second (listen), which only Redis told of it.
describe.each(RUNTIME_NAMES)("%s: a handshake-era session across two processes on one Redis", (name) => {
  const target = runtime(name);
  let redis: RedisServer | undefined;
  const processes: (RuntimeProcess & { urls: Record<string, string> })[] = [];
  let client: Client;
  // Where each request went: the client's transport sends to the first process until told otherwise.
  let to = 0;
  const sentTo: number[] = [];

  beforeAll(async () => {
    redis = await startRedis({ appendonly: false });
    const env = { REDIS_URL: redis.url };
    processes.push(await serveFixtures(target, "serve", { fixtures: ["main"], env }));
    processes.push(await serveFixtures(target, "listen", { fixtures: ["main"], env }));
    const urls = processes.map((served) => served.urls.main as string);
    client = new Client(
      { name: "runtimes-redis", version: "1.0.0" },
      { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: "legacy" } },
    );
    client.setRequestHandler("elicitation/create", async () => ({ action: "accept", content: { name: "Ada" } }));
    const transport = new StreamableHTTPClientTransport(new URL(urls[0] as string), {
      fetch: (url, init) => {
        sentTo.push(to);
        return fetch(String(url).replace(urls[0] as string, urls[to] as string), init);
      },
    });
    await client.connect(transport);
  });
  afterAll(async () => {
    await client?.close();
    await Promise.all(processes.map((served) => served.stop()));
    await redis?.stop();
    // Neither process logged a warning (a Redis it could not use, a session it did not know).
    for (const served of processes) expect(served.stderr().replace(/^listening .*\n/, "")).toBe("");
  });

  it("opens the session on the first process and serves it from the second", async () => {
    expect(client.getNegotiatedProtocolVersion()).toBe("2025-11-25");
    const visits = async () => firstText(await client.callTool({ name: "session_visits", arguments: {} }));
    expect(await visits()).toBe("1");
    to = 1;
    const from = sentTo.length;
    expect(await client.ping()).toEqual({});
    expect(firstText(await client.callTool({ name: "echo", arguments: { text: "from the second" } }))).toBe(
      "from the second",
    );
    // The session's own store is in Redis: the second process counts on from the first's.
    expect(await visits()).toBe("2");
    // The server's question goes out on the second process's stream and the answer comes back to it.
    expect(firstText(await client.callTool({ name: "ask_name", arguments: { role: "pilot" } }))).toBe("Hello, Ada!");
    expect(sentTo.slice(from).every((index) => index === 1)).toBe(true);
  });
});
