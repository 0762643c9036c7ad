import { PassThrough } from "node:stream";
import { createServer } from "@toolsmith/core";
import { afterEach, describe, expect, it } from "vitest";
import { type HttpServer, listen } from "./node-server.js";

// `listen` gives a server without a logger one on its log stream (or stderr), as stdio does: what a request cannot
// tell its client is still heard by whoever runs the server.

const open: HttpServer[] = [];
afterEach(async () => {
  for (const server of open.splice(0)) await server.close();
});

function capture(): { stream: PassThrough; text: () => string } {
  const stream = new PassThrough();
  let text = "";
  stream.on("data", (chunk: Buffer) => {
    text += chunk.toString("utf8");
  });
  return { stream, text: () => text };
}

const INIT = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
};

async function postInit(url: string): Promise<number> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify(INIT),
  });
  await response.text();
  return response.status;
}

describe("listen's logger", () => {
  it("a principal without a subject is told on the log stream once, naming authenticate, however many requests", async () => {
    const log = capture();
    const server = createServer({ name: "t", version: "1" });
    const http = await listen(server, { port: 0, log: log.stream, authenticate: () => ({}) as never });
    open.push(http);
    expect([await postInit(http.url), await postInit(http.url), await postInit(http.url)]).toEqual([401, 401, 401]);
    const lines = log
      .text()
      .split("\n")
      .filter((line) => line.includes("authenticate"));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^\[toolsmith\] /);
  });

  it("a server's own logger is kept", async () => {
    const log = capture();
    const heard: string[] = [];
    const server = createServer({ name: "t", version: "1", logger: (entry) => heard.push(entry.message) });
    const http = await listen(server, { port: 0, log: log.stream, authenticate: () => ({}) as never });
    open.push(http);
    expect(await postInit(http.url)).toBe(401);
    expect(heard.filter((message) => message.includes("authenticate"))).toHaveLength(1);
    expect(log.text()).not.toContain("authenticate");
  });
});
