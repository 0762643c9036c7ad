import { once } from "node:events";
import { connect, type Socket } from "node:net";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createServer } from "@toolsmith/core";
import { MetaKey } from "@toolsmith/core/transport";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { within } from "../../../../scripts/wait.js";
import { createHttpHandler } from "../doors/http-handler.js";
import { type HttpServer, listen } from "../doors/node-server.js";
import { events, H, headers2026, initialize, META, post } from "./requests.test-util.js";

// A tool that logs far more than a stream's unread bound (1 MiB) in one go, to a client that reads: every message
// is written within one turn of the event loop, before the socket can take any of it. The reply still arrives, in
// both eras; log messages past the bound are left out, so a client that does not read still costs bounded memory.

const FLOOD = 20_000;
const LINE = "a message of the flood, long enough to look like a real one";
const DEBUG = { ...META, [MetaKey.logLevel]: "debug" };

function floodServer(onDone?: (tool: string) => void) {
  const server = createServer({ name: "flood", version: "1" });
  server.tool({
    name: "flood",
    description: "Logs a lot, then answers",
    handler: async (_args, ctx) => {
      // Awaiting between messages (as a tool that awaits per item does): each is written as it is said.
      for (let i = 0; i < FLOOD; i++) {
        ctx.log.info(`${LINE} ${i}`);
        await null;
      }
      onDone?.("flood");
      return "done";
    },
  });
  server.tool({
    name: "slow_flood",
    description: "Logs 32 MB, a message a turn of the event loop, then answers",
    handler: async (_args, ctx) => {
      const big = "x".repeat(1024);
      for (let said = 0; said < 32 * 1024 * 1024; said += big.length) {
        ctx.log.info(big);
        await new Promise((resolve) => setImmediate(resolve));
      }
      onDone?.("slow_flood");
      return "slow done";
    },
  });
  return server;
}

/** The numbers of the flood's log messages, in the order they came: never out of order, none twice. */
function inOrder(seen: number[]): void {
  for (let i = 1; i < seen.length; i++) expect(seen[i]).toBeGreaterThan(seen[i - 1] as number);
}

describe("node:http", () => {
  let http: HttpServer;
  let slowDone: () => void = () => {};
  beforeAll(async () => {
    http = await listen(
      floodServer((tool) => {
        if (tool === "slow_flood") slowDone();
      }),
      { port: 0, log: null },
    );
  });
  afterAll(() => http.close());

  describe.each([
    ["handshake era", "legacy" as const],
    ["2026-07-28", { pin: "2026-07-28" as const }],
  ])("the official client (%s)", (era, mode) => {
    it("gets the tool's reply after a flood of log messages, and the messages it got in order", async () => {
      const client = new Client({ name: "flood", version: "1" }, { versionNegotiation: { mode } });
      const seen: number[] = [];
      client.setNotificationHandler("notifications/message", (notification) => {
        seen.push(Number(String(notification.params.data).split(" ").at(-1)));
      });
      await client.connect(new StreamableHTTPClientTransport(new URL(http.url)));
      try {
        if (era === "handshake era") await client.setLoggingLevel("debug");
        const result = await client.callTool({
          name: "flood",
          arguments: {},
          _meta: { [MetaKey.logLevel]: "debug" },
        });
        expect(result).toMatchObject({ content: [{ type: "text", text: "done" }] });
        expect(seen.length).toBeGreaterThan(0);
        expect(seen.length).toBeLessThanOrEqual(FLOOD);
        inOrder(seen);
      } finally {
        await client.close();
      }
    });
  });

  it("a raw reader (2026-07-28) gets the reply as the stream's last event", async () => {
    const body = {
      jsonrpc: "2.0",
      id: 7,
      method: "tools/call",
      params: { name: "flood", arguments: {}, _meta: DEBUG },
    };
    const response = await fetch(http.url, {
      method: "POST",
      headers: headers2026("tools/call", "flood"),
      body: JSON.stringify(body),
    });
    const messages = await events(response);
    expect(messages.at(-1)).toMatchObject({ id: 7, result: { content: [{ text: "done" }] } });
    const logs = messages.slice(0, -1) as { params: { data: string } }[];
    expect(logs.length).toBeGreaterThan(0);
    inOrder(logs.map((log) => Number(log.params.data.split(" ").at(-1))));
  });

  it("a raw reader (handshake era) gets the reply as the stream's last event", async () => {
    const opened = await fetch(http.url, { method: "POST", headers: H, body: JSON.stringify(initialize()) });
    const headers = { ...H, "mcp-session-id": opened.headers.get("mcp-session-id") as string };
    await fetch(http.url, {
      method: "POST",
      headers,
      body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
    });
    const body = { jsonrpc: "2.0", id: 8, method: "tools/call", params: { name: "flood", arguments: {} } };
    const messages = await events(await fetch(http.url, { method: "POST", headers, body: JSON.stringify(body) }));
    expect(messages.at(-1)).toMatchObject({ id: 8, result: { content: [{ text: "done" }] } });
  });

  it("a reader that reads nothing until the tool is done: bounded, and the reply still comes", async () => {
    const url = new URL(http.url);
    const socket: Socket = connect(Number(url.port), url.hostname);
    await once(socket, "connect");
    socket.pause();
    socket.on("error", () => {});
    const done = new Promise<void>((resolve) => {
      slowDone = resolve;
    });
    const body = JSON.stringify({
      jsonrpc: "2.0",
      id: 9,
      method: "tools/call",
      params: { name: "slow_flood", arguments: {}, _meta: DEBUG },
    });
    const head = Object.entries({ ...headers2026("tools/call", "slow_flood"), host: url.host })
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join("");
    socket.write(`POST ${url.pathname} HTTP/1.1\r\n${head}content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    await within(done, "the tool to say its 32 MB");
    let received = "";
    socket.setEncoding("utf8").on("data", (chunk: string) => {
      received += chunk;
      // The last event (chunked encoding ends the body with an empty chunk).
      if (received.endsWith("\r\n0\r\n\r\n")) socket.end();
    });
    const closed = once(socket, "close");
    socket.resume();
    await within(closed, "the reply's stream to end");
    // Far less than the 32 MB said: what was past the bound was left out, not kept for this client.
    expect(received.length).toBeLessThan(16 * 1024 * 1024);
    expect(received).toContain('"id":9,"result":{"content":[{"type":"text","text":"slow done"}]');
  }, 120_000);
});

it("web handler: a 2026-07-28 stream read only once its tool is done: the flood is cut short, the reply comes", async () => {
  let finished = () => {};
  const done = new Promise<void>((resolve) => {
    finished = resolve;
  });
  const handle = createHttpHandler(floodServer(() => finished()));
  try {
    const request = {
      jsonrpc: "2.0",
      id: 4,
      method: "tools/call",
      params: { name: "flood", arguments: {}, _meta: DEBUG },
    };
    const response = await handle(post(request, headers2026("tools/call", "flood")));
    await within(done, "the tool to say its flood");
    const messages = await events(response);
    expect(messages.at(-1)).toMatchObject({ id: 4, result: { content: [{ text: "done" }] } });
    expect(messages.length).toBeGreaterThan(1);
    expect(messages.length).toBeLessThan(FLOOD);
  } finally {
    handle.close();
  }
});
