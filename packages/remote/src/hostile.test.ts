import { once } from "node:events";
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createServer } from "@toolsmith/core";
import { listen } from "@toolsmith/transport-http";
import { afterEach, describe, expect, it } from "vitest";
import { createRemote } from "./index.js";

// A hostile remote written on node:http (the handshake era, no SDK): its answers to what no call sends (initialize,
// the lists, the standalone GET stream) are bounded as a call's are, and what the gateway's caller sends it (its
// Authorization) never reaches the remote. The gateway is served over HTTP to the official client.

const open: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  for (const item of open.splice(0).reverse()) await item.close();
});

const BOUND = 1024 * 1024;

interface Hostile {
  url: string;
  /** The headers of every request the remote was sent. */
  headers: IncomingMessage["headers"][];
  /** Settles with the bytes written once the endless answer's connection closes. */
  endless: Promise<number>;
}

// Writes `first`, then spaces (valid JSON whitespace, or an event's data that never ends) until the reader hangs up.
function endlessly(res: ServerResponse, first: string): Promise<number> {
  return new Promise((resolve) => {
    const chunk = " ".repeat(64 * 1024);
    let written = first.length;
    let closed = false;
    res.once("close", () => {
      closed = true;
      resolve(written);
    });
    res.write(first);
    const pump = () => {
      while (!closed) {
        written += chunk.length;
        if (!res.write(chunk)) return void res.once("drain", pump);
      }
    };
    pump();
  });
}

const HOSTILE_NAMES = ["__proto__", "constructor", "toString", "a/b", "a\nb", "x".repeat(70), "", "dup", "dup"];

async function hostile(endless: "list" | "stream" | "names" | "none"): Promise<Hostile> {
  const headers: IncomingMessage["headers"][] = [];
  let settle: (bytes: number) => void = () => undefined;
  const done = new Promise<number>((resolve) => {
    settle = resolve;
  });
  const server = createHttpServer(async (req, res) => {
    headers.push(req.headers);
    if (req.method === "GET") {
      if (endless !== "stream") return void res.writeHead(405).end();
      res.writeHead(200, { "content-type": "text/event-stream" });
      return void endlessly(res, "data: {").then(settle);
    }
    if (req.method !== "POST") return void res.writeHead(405).end();
    let body = "";
    for await (const chunk of req) body += chunk;
    const message = JSON.parse(body) as { id?: number; method: string; params?: { protocolVersion?: string } };
    if (message.id === undefined) return void res.writeHead(202).end();
    const json = (result: unknown) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ jsonrpc: "2.0", id: message.id, result }));
    };
    if (message.method === "initialize") {
      return json({
        protocolVersion: message.params?.protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name: "hostile", version: "1.0.0" },
      });
    }
    if (message.method === "tools/list" && endless === "list") {
      res.writeHead(200, { "content-type": "application/json" });
      return void endlessly(res, `{"jsonrpc":"2.0","id":${message.id},"result":{"tools":[`).then(settle);
    }
    if (message.method === "tools/list") {
      const names = endless === "names" ? [...HOSTILE_NAMES, "echo"] : ["echo"];
      return json({ tools: names.map((name) => ({ name, description: name, inputSchema: { type: "object" } })) });
    }
    return json({ content: [{ type: "text", text: "echoed" }] });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  open.unshift({
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, headers, endless: done };
}

async function gateway(url: string, headers?: Record<string, string>) {
  const remote = await createRemote({
    url,
    era: "legacy",
    maxResultBytes: BOUND,
    timeoutMs: 60_000,
    backoff: { initialMs: 60_000 },
    ...(headers ? { headers } : {}),
  });
  open.push(remote);
  const app = createServer({ name: "gateway", version: "1.0.0" });
  app.setLogger(() => undefined);
  app.tool({ name: "local", description: "A local tool", handler: () => "here" });
  app.mount("r", remote.server);
  const http = await listen(app, { port: 0, log: null });
  open.push(http);
  const client = new Client({ name: "test", version: "1.0.0" }, { versionNegotiation: { mode: "legacy" } });
  const transport = new StreamableHTTPClientTransport(new URL(http.url), {
    requestInit: { headers: { authorization: "Bearer the-callers-own-token" } },
  });
  await client.connect(transport);
  open.push(client);
  return { client, remote };
}

describe("a hostile remote over HTTP", () => {
  it("a tools/list answer that never ends is cut past the bound, and the gateway lists its own tools", async () => {
    const remote = await hostile("list");
    const { client } = await gateway(remote.url);
    const written = await remote.endless;
    expect(written).toBeLessThan(8 * BOUND);
    const names = (await client.listTools()).tools.map((tool) => tool.name);
    expect(names).toEqual(["local"]);
  }, 60_000);

  it("an event on the standalone GET stream that never ends is cut past the bound; calls go on", async () => {
    const remote = await hostile("stream");
    const { client } = await gateway(remote.url);
    const written = await remote.endless;
    expect(written).toBeLessThan(8 * BOUND);
    const result = await client.callTool({ name: "r.echo", arguments: {} });
    expect(result.content).toEqual([{ type: "text", text: "echoed" }]);
  }, 60_000);

  it("the caller's Authorization never reaches the remote; the configured headers do", async () => {
    const remote = await hostile("none");
    const { client } = await gateway(remote.url, { "x-gateway-key": "configured" });
    await client.callTool({ name: "r.echo", arguments: {} });
    expect(remote.headers.length).toBeGreaterThan(0);
    for (const headers of remote.headers) {
      expect(headers.authorization).toBeUndefined();
      expect(JSON.stringify(headers)).not.toContain("the-callers-own-token");
      expect(headers["x-gateway-key"]).toBe("configured");
    }
  });
});

describe("a remote whose tool names are hostile", () => {
  it("lists what core takes, leaves out the rest, and each call reaches the remote under its own name", async () => {
    const remote = await hostile("names");
    const { client } = await gateway(remote.url);
    const names = (await client.listTools()).tools.map((tool) => tool.name).sort();
    expect(names).toEqual(["local", "r.__proto__", "r.constructor", "r.dup", "r.echo", "r.toString"]);
    const proto = await client.callTool({ name: "r.__proto__", arguments: {} });
    expect(proto.content).toEqual([{ type: "text", text: "echoed" }]);
    expect((await client.callTool({ name: "r.echo", arguments: {} })).content).toEqual([
      { type: "text", text: "echoed" },
    ]);
  });
});
