import { once } from "node:events";
import { connect, type Socket } from "node:net";
import { createServer } from "@toolsmith/core";
import { expect, it } from "vitest";
import { within } from "../../../../scripts/wait.js";
import { createHttpHandler } from "../doors/http-handler.js";
import { listen } from "../doors/node-server.js";
import { get, H, initialize, post } from "./requests.test-util.js";

// A GET stream whose client never reads while the server says a lot on it: the process does not buffer it without
// bound (the stream is cut; its events stay kept for a resume with Last-Event-ID), and other sessions go on.

const URI = `note://${"x".repeat(200)}`;
// Far more than any socket buffers: without a bound, all of it would wait in the process for the client.
const PUSHED = 32 * 1024 * 1024;

function mcpServer() {
  const server = createServer({ name: "slow", version: "1" });
  server.resource({ uri: URI, handler: () => "big" });
  server.tool({ name: "t", description: "t", handler: () => "ok" });
  return server;
}

async function opened(base: string, subscribe: boolean): Promise<string> {
  const response = await fetch(base, { method: "POST", headers: H, body: JSON.stringify(initialize()) });
  const session = response.headers.get("mcp-session-id") as string;
  const headers = { ...H, "mcp-session-id": session };
  await fetch(base, {
    method: "POST",
    headers,
    body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
  });
  if (subscribe) {
    const body = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "resources/subscribe", params: { uri: URI } });
    expect((await fetch(base, { method: "POST", headers, body })).status).toBe(200);
  }
  return session;
}

it("node:http: a GET stream never read is cut once its unread bytes pass the bound; other sessions are served", async () => {
  const server = mcpServer();
  const own = await listen(server, { port: 0, log: null });
  try {
    const url = new URL(own.url);
    const session = await opened(own.url, true);
    // A raw client that asks for the stream and never reads a byte of it.
    const socket: Socket = connect(Number(url.port), url.hostname);
    await once(socket, "connect");
    socket.pause();
    socket.on("error", () => {});
    socket.write(
      `GET ${url.pathname} HTTP/1.1\r\nhost: ${url.host}\r\naccept: text/event-stream\r\nmcp-session-id: ${session}\r\n\r\n`,
    );
    // Let the GET stream open: a request made after it was answered.
    const other = await opened(own.url, false);
    // One update a turn of the event loop (updates said together may be told as one).
    for (let pushed = 0; pushed < PUSHED; pushed += URI.length) {
      server.resourceUpdated(URI);
      await new Promise((resolve) => setImmediate(resolve));
    }
    // Now the client reads: it gets what was sent before the cut, then the end; never everything that was said.
    let received = 0;
    const ended = new Promise<void>((resolve) => socket.on("close", () => resolve()));
    socket.on("data", (chunk: Buffer) => {
      received += chunk.length;
      if (received > PUSHED / 2) socket.destroy();
    });
    socket.resume();
    await within(ended, "the cut stream to end on the client");
    expect(received).toBeLessThan(PUSHED / 2);
    // Another session of the same process is served as ever.
    const response = await fetch(own.url, {
      method: "POST",
      headers: { ...H, "mcp-session-id": other },
      body: JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "t", arguments: {} } }),
    });
    expect(await response.json()).toMatchObject({ id: 3, result: { content: [{ text: "ok" }] } });
  } finally {
    await own.close();
  }
}, 120_000);

it("web handler: a GET stream's body never read is errored once its unread bytes pass the bound", async () => {
  const server = mcpServer();
  const handle = createHttpHandler(server);
  try {
    const opened_ = await handle(post(initialize(), H));
    const session = opened_.headers.get("mcp-session-id") as string;
    const headers = { ...H, "mcp-session-id": session };
    await handle(post({ jsonrpc: "2.0", method: "notifications/initialized" }, headers));
    await handle(post({ jsonrpc: "2.0", id: 2, method: "resources/subscribe", params: { uri: URI } }, headers));
    const stream = await handle(get({ accept: "text/event-stream", "mcp-session-id": session }));
    expect(stream.status).toBe(200);
    for (let n = 0; n < 8192; n++) {
      server.resourceUpdated(URI);
      await new Promise((resolve) => setImmediate(resolve));
    }
    // The queue was dropped at the bound: reading fails rather than yielding megabytes.
    const reader = (stream.body as ReadableStream<Uint8Array>).getReader();
    await expect(reader.read()).rejects.toThrow(/read too slowly/);
  } finally {
    handle.close();
  }
});
