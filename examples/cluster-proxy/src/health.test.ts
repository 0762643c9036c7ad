import { createServer as createNodeServer } from "node:http";
import type { AddressInfo } from "node:net";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createServer } from "@toolsmith/core";
import { createHttpHandler, type HttpHandler, nodeListener } from "@toolsmith/transport-http";
import { afterEach, describe, expect, it, vi } from "vitest";
import { until } from "../../../scripts/wait.js";
import { backend, post, proxyFor } from "./backends.test-util.js";
import { type HealthChange, startProxy } from "./round-robin.js";

const stops: (() => Promise<void>)[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(stops.splice(0).map((stop) => stop()));
});

/** A Toolsmith server in this process, on node:http: it answers `where` with its name. */
async function toolsmith(name: string): Promise<{ url: string; handler: HttpHandler }> {
  const server = createServer({ name: "health", version: "1" });
  server.tool({ name: "where", description: "Says which process answered", handler: () => name });
  const handler = createHttpHandler(server);
  const http = createNodeServer(nodeListener(handler));
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  stops.push(async () => {
    handler.close();
    await new Promise<void>((resolve) => {
      http.close(() => resolve());
      http.closeAllConnections();
    });
  });
  return { url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`, handler };
}

describe("the proxy's health checks", () => {
  it("take a backend out after `unhealthyAfter` failed probes in a row, and put it back after one success", async () => {
    const [a, b] = [await backend("a"), await backend("b")];
    const changes: HealthChange[] = [];
    const proxy = await proxyFor([a, b], { unhealthyAfter: 3, onHealth: (change) => changes.push(change) });
    await until(() => a.healthz.probes > 0, "a's first probe");
    a.healthz.status = 500;
    const from = a.healthz.probes;
    await until(() => proxy.health()[0]?.up === false, "a out of rotation");
    expect(a.healthz.probes - from).toBeGreaterThanOrEqual(3);
    expect(changes).toEqual([{ index: 0, url: a.url, up: false, reason: "HTTP 500" }]);
    for (let i = 0; i < 3; i++) expect((await post(proxy.url, String(i))).backend).toBe("b");
    a.healthz.status = 200;
    await until(() => proxy.health()[0]?.up, "a back in rotation");
    expect(changes.at(-1)).toEqual({ index: 0, url: a.url, up: true, reason: undefined });
    const both = [(await post(proxy.url, "3")).backend, (await post(proxy.url, "4")).backend];
    expect(both.sort()).toEqual(["a", "b"]);
  });

  it("take a backend out at the first refused probe, and put it back once replaced by one that answers", async () => {
    const [a, b] = [await backend("a"), await backend("b")];
    const proxy = await proxyFor([a, b], { unhealthyAfter: 5 });
    await a.stop();
    await until(() => proxy.health()[0]?.up === false, "a out of rotation");
    expect(proxy.health()[0]).toMatchObject({ reason: "refused", failures: 1 });
    const again = await backend("a again");
    proxy.replace(0, again.url);
    await until(() => proxy.health()[0]?.up, "a's replacement in rotation");
    expect(proxy.health()[0]?.url).toBe(again.url);
  });

  it("take a draining Toolsmith server out at its first 503 `closing`; the official client's calls go on elsewhere", async () => {
    const [one, two] = [await toolsmith("one"), await toolsmith("two")];
    const proxy = await proxyFor([one, two], { unhealthyAfter: 5 });
    const client = new Client(
      { name: "health-test", version: "1" },
      { versionNegotiation: { mode: { pin: "2026-07-28" } } },
    );
    await client.connect(new StreamableHTTPClientTransport(new URL(proxy.url)));
    stops.push(() => client.close());
    const where = async () => {
      const result = await client.callTool({ name: "where", arguments: {} });
      return (result.content as { text: string }[])[0]?.text;
    };
    const before = [await where(), await where()];
    expect(before.sort()).toEqual(["one", "two"]);
    one.handler.close();
    await until(() => proxy.health()[0]?.up === false, "the draining server out of rotation");
    expect(proxy.health()[0]).toMatchObject({ reason: "closing", failures: 1 });
    expect([await where(), await where(), await where()]).toEqual(["two", "two", "two"]);
  });

  it("leave no timer and no probe behind once the proxy is closed", async () => {
    // The health checks' own timers, told from the process's others (a backend's, an earlier test's closing
    // sockets') by where they were set: each is live until it fires or is cleared.
    const live = new Set<unknown>();
    const { setTimeout: set, clearTimeout: clear } = globalThis;
    vi.spyOn(globalThis, "setTimeout").mockImplementation(((run: () => void, ms?: number) => {
      const timer = set(() => {
        live.delete(timer);
        run();
      }, ms);
      if (new Error().stack?.includes("cluster-proxy/src/health.ts")) live.add(timer);
      return timer;
    }) as typeof setTimeout);
    vi.spyOn(globalThis, "clearTimeout").mockImplementation((timer) => {
      live.delete(timer);
      clear(timer);
    });
    const a = await backend("a");
    const proxy = await startProxy({ backends: [a.url], healthIntervalMs: 60_000 });
    await until(() => a.healthz.probes > 0 && proxy.health()[0]?.failures === 0, "the first probe");
    expect(live.size).toBeGreaterThan(0);
    await proxy.close();
    // A probe's own timeout goes when its request has closed, which a probe still in flight does a moment later.
    await until(() => live.size === 0, "the health checks' timers gone", 30_000);
  });
});
