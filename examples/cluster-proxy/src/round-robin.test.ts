import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { type RoundRobinProxy, startProxy } from "./round-robin.js";

// Backends in this process that say who they are; an SSE one writes an event and waits for the test to end it.
const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((thing) => thing.close()));
});

interface Backend {
  url: string;
  server: Server;
  /** The SSE responses it holds open. */
  streams: ServerResponse[];
  seen: IncomingMessage[];
}

async function backend(name: string): Promise<Backend> {
  const streams: ServerResponse[] = [];
  const seen: IncomingMessage[] = [];
  const server = createServer((req, res) => {
    seen.push(req);
    if (req.headers.accept === "text/event-stream") {
      res.writeHead(200, { "content-type": "text/event-stream", "mcp-session-id": name });
      res.write(`id: 1\ndata: from ${name}\n\n`);
      streams.push(res);
      return;
    }
    let body = "";
    req.setEncoding("utf8").on("data", (chunk: string) => {
      body += chunk;
    });
    req.on("end", () => res.writeHead(200, { "x-backend": name }).end(`${name}:${body}`));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  open.push({
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  });
  return { url: `http://127.0.0.1:${port}/mcp`, server, streams, seen };
}

async function proxyFor(backends: Backend[]): Promise<RoundRobinProxy> {
  const proxy = await startProxy({ backends: backends.map((b) => b.url) });
  open.unshift(proxy);
  return proxy;
}

const post = async (url: string, body: string) => {
  const response = await fetch(url, { method: "POST", body, headers: { "mcp-method": "tools/call" } });
  return { status: response.status, text: await response.text(), backend: response.headers.get("x-backend") };
};

describe("the round-robin proxy", () => {
  it("sends request i to backend i mod N, with its body, path and headers, whatever its session", async () => {
    const backends = [await backend("a"), await backend("b"), await backend("c")];
    const proxy = await proxyFor(backends);
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await post(proxy.url, `call ${i}`));
    expect(answers.map((answer) => answer.text)).toEqual(["a:call 0", "b:call 1", "c:call 2", "a:call 3"]);
    expect(proxy.routed.map((routed) => [routed.backend, routed.mcpMethod])).toEqual([
      [0, "tools/call"],
      [1, "tools/call"],
      [2, "tools/call"],
      [0, "tools/call"],
    ]);
    const [first] = backends[0]?.seen ?? [];
    expect(first?.url).toBe("/mcp");
    expect(first?.headers["mcp-method"]).toBe("tools/call");
    // The backend's own Host (its DNS rebinding check), the client's as X-Forwarded-Host.
    expect(first?.headers.host).toBe(new URL(backends[0]?.url ?? "").host);
    expect(first?.headers["x-forwarded-host"]).toBe(new URL(proxy.url).host);
  });

  it("skips a backend out of rotation, and sends to it again once back", async () => {
    const proxy = await proxyFor([await backend("a"), await backend("b")]);
    proxy.rotate(0, false);
    expect(proxy.peek()).toBe(1);
    expect((await post(proxy.url, "1")).backend).toBe("b");
    expect((await post(proxy.url, "2")).backend).toBe("b");
    proxy.rotate(0, true);
    const both = [(await post(proxy.url, "3")).backend, (await post(proxy.url, "4")).backend];
    expect(both.sort()).toEqual(["a", "b"]);
    proxy.rotate(0, false);
    proxy.rotate(1, false);
    expect((await post(proxy.url, "5")).status).toBe(503);
  });

  it("streams an SSE event before the backend ends the response, and cuts the stream when the backend dies", async () => {
    const sse = await backend("a");
    const proxy = await proxyFor([sse]);
    const response = await fetch(proxy.url, { headers: { accept: "text/event-stream" } });
    expect(response.headers.get("mcp-session-id")).toBe("a");
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe("id: 1\ndata: from a\n\n");
    sse.server.closeAllConnections();
    const end = await reader.read().then(
      (result) => (result.done ? "ended" : "more"),
      () => "cut",
    );
    expect(["ended", "cut"]).toContain(end);
  });

  it("answers 502 for a backend that is not there", async () => {
    const gone = await backend("gone");
    await new Promise<void>((resolve) => gone.server.close(() => resolve()));
    const proxy = await proxyFor([gone]);
    expect((await post(proxy.url, "x")).status).toBe(502);
  });
});
