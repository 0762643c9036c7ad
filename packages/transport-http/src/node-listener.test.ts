import { once } from "node:events";
import { Agent, createServer as createNodeServer, type IncomingMessage, request } from "node:http";
import { type AddressInfo, connect } from "node:net";
import { createServer, ErrorCode, MetaKey } from "@toolsmith/core";
import { afterEach, describe, expect, it } from "vitest";
import { createHttpHandler, type HttpOptions } from "./http-handler.js";
import { listen, nodeListener } from "./listen.js";

// The node:http front doors (`listen`, and `nodeListener` around a handler): what a raw client sees.

const META = { [MetaKey.protocolVersion]: "2026-07-28", [MetaKey.clientCapabilities]: {} };
const LIST = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: META } });
const HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": "2026-07-28",
  "mcp-method": "tools/list",
};

function mcpServer() {
  const s = createServer({ name: "node", version: "1" });
  s.tool({ name: "t", description: "t", handler: () => "ok" });
  return s;
}

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

type FrontDoor = (options: HttpOptions) => Promise<URL>;

const FRONT_DOORS: Record<string, FrontDoor> = {
  listen: async (options) => {
    const http = await listen(mcpServer(), { port: 0, log: null, ...options });
    cleanup.push(() => http.close());
    return new URL(http.url);
  },
  "nodeListener(createHttpHandler)": async (options) => {
    const handler = createHttpHandler(mcpServer(), options);
    const server = createNodeServer(nodeListener(handler));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    cleanup.push(async () => {
      handler.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    });
    return new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`);
  },
};

interface Answer {
  status: number;
  body: string;
}

async function read(response: IncomingMessage): Promise<Answer> {
  response.setEncoding("utf8");
  let body = "";
  for await (const chunk of response) body += chunk;
  return { status: response.statusCode ?? 0, body };
}

// One POST; `headers` replace the defaults (a Host among them is sent as given).
async function send(url: URL, body: string, headers: Record<string, string> = {}, agent?: Agent): Promise<Answer> {
  const req = request(url, { method: "POST", headers: { ...HEADERS, ...headers }, ...(agent ? { agent } : {}) });
  req.end(body);
  const [response] = (await once(req, "response")) as [IncomingMessage];
  return read(response);
}

describe.each(Object.entries(FRONT_DOORS))("%s", (_name, start) => {
  it("a chunked body over the limit gets its 413 while the client is still sending", async () => {
    const url = await start({ maxBodyBytes: 1000 });
    const req = request(url, { method: "POST", headers: HEADERS });
    // No Content-Length: chunked. The body goes past the limit and the request is never ended.
    req.write(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"pad":"`);
    req.write("x".repeat(4000));
    const [response] = (await once(req, "response")) as [IncomingMessage];
    const answer = await read(response);
    req.destroy();
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: ErrorCode.InvalidRequest, message: "Request body over 1000 bytes" },
    });
  });

  it("a client that keeps sending past the limit gets the 413, and is cut off once a bounded drain is over", async () => {
    const url = await start({ maxBodyBytes: 1000 });
    // A raw socket: node's own client stops sending once it has a response; this one does not.
    const socket = connect(Number(url.port), "127.0.0.1");
    socket.on("error", () => {});
    let answer = "";
    socket.setEncoding("utf8").on("data", (text: string) => {
      answer += text;
    });
    let open = true;
    const closed = new Promise<void>((resolve) =>
      socket.once("close", () => {
        open = false;
        resolve();
      }),
    );
    const headers = Object.entries(HEADERS).map(([name, value]) => `${name}: ${value}\r\n`);
    socket.write(`POST /mcp HTTP/1.1\r\nhost: ${url.host}\r\ntransfer-encoding: chunked\r\n${headers.join("")}\r\n`);
    const cap = 128 * 1024 * 1024;
    const piece = 64 * 1024;
    const chunk = `${piece.toString(16)}\r\n${"x".repeat(piece)}\r\n`;
    let sent = 0;
    while (open && sent < cap) {
      sent += piece;
      if (!socket.write(chunk)) await Promise.race([once(socket, "drain").catch(() => undefined), closed]);
    }
    await closed;
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer).toContain(
      '{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Request body over 1000 bytes"}}',
    );
    // The server read on for a while (so the 413 got out), then cut: never the whole of what the client sent.
    expect(sent).toBeLessThan(cap);
  });

  it("a body over the limit is 413 with either framing, and the connection serves the next request", async () => {
    const url = await start({ maxBodyBytes: 1000 });
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    cleanup.push(async () => agent.destroy());
    const big = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { pad: "x".repeat(5000) } });
    const framings: Record<string, string>[] = [
      { "content-length": String(big.length) },
      { "transfer-encoding": "chunked" },
    ];
    for (const framing of framings) {
      const refused = await send(url, big, framing, agent);
      expect(refused.status).toBe(413);
      expect(JSON.parse(refused.body)).toMatchObject({ id: null, error: { code: ErrorCode.InvalidRequest } });
      expect((await send(url, LIST, {}, agent)).status).toBe(200);
    }
  });
});
