import { once } from "node:events";
import { connect } from "node:net";
import { createServer, LATEST_HANDSHAKE_VERSION } from "@toolsmith/core";
import { createMemoryEngine, type Engine } from "@toolsmith/core/engine";
import { afterEach, describe, expect, it } from "vitest";
import { createHttpHandler } from "../doors/http-handler.js";
import { type HttpServer, listen } from "../doors/node-server.js";
import {
  call2026,
  get,
  H,
  headers2026,
  initialize,
  META,
  openSession,
  post,
  URL_,
} from "../exchange/requests.test-util.js";

// Once close() has begun, /mcp starts nothing new (a session made then would outlive close): 503 with Retry-After,
// as a JSON-RPC -32000 naming the request's id, so the client retries on a process still in rotation.

const REFUSED = {
  code: -32000,
  message: "Service unavailable: this server is shutting down; try again shortly",
  data: { retryAfterSeconds: 1 },
};

// A tool that waits for the test: `entered` resolves as it runs, `release` lets it answer.
function gated(engine?: Engine) {
  let release = () => {};
  let entered = () => {};
  const running = new Promise<void>((resolve) => {
    entered = resolve;
  });
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const server = createServer({ name: "closing", version: "1", ...(engine ? { engine } : {}) });
  server.tool({ name: "one", description: "One", handler: () => "1" });
  server.tool({
    name: "slow",
    description: "Slow",
    handler: async () => {
      entered();
      await gate;
      return "done";
    },
  });
  return { server, running, release: () => release() };
}

async function refused(response: Response, id: number | null): Promise<void> {
  expect([response.status, response.headers.get("retry-after")]).toEqual([503, "1"]);
  expect(await response.json()).toEqual({ jsonrpc: "2.0", id, error: REFUSED });
}

describe("the web-standard handler once close() has begun", () => {
  it("refuses a new session, a 2026-07-28 request and an old session's requests: 503 with Retry-After", async () => {
    const { server } = gated();
    const handle = createHttpHandler(server);
    const old = await openSession(handle);
    handle.close();
    await refused(await handle(post(initialize(7), H)), 7);
    expect(handle.sessions).toBe(0);
    await refused(await handle(call2026(8, "one", { arguments: {} })), 8);
    const listen = { jsonrpc: "2.0", id: 9, method: "subscriptions/listen", params: { _meta: META } };
    await refused(await handle(post(listen, headers2026("subscriptions/listen"))), 9);
    const inSession = { ...H, "mcp-session-id": old, "mcp-protocol-version": LATEST_HANDSHAKE_VERSION };
    await refused(await handle(post({ jsonrpc: "2.0", id: 10, method: "tools/list" }, inSession)), 10);
    await refused(await handle(get({ ...inSession, accept: "text/event-stream" })), null);
    await refused(await handle(new Request(URL_, { method: "DELETE", headers: inSession })), null);
    expect(handle.sessions).toBe(0);
  });

  it("lets a 2026-07-28 request in flight finish", async () => {
    const { server, running, release } = gated();
    const handle = createHttpHandler(server);
    const answered = handle(call2026(1, "slow", { arguments: {} }));
    await running;
    handle.close();
    release();
    const response = await answered;
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('"done"');
  });

  it("refuses an initialize in flight whose session is kept only after close(), and keeps nothing", async () => {
    const memory = createMemoryEngine();
    let stored = () => {};
    const storing = new Promise<void>((resolve) => {
      stored = resolve;
    });
    let proceed = () => {};
    const held = new Promise<void>((resolve) => {
      proceed = resolve;
    });
    const created: string[] = [];
    // The memory engine, its createSession held until the test has closed the handler.
    const engine = new Proxy(memory, {
      get(target, key) {
        if (key === "createSession") {
          return async (...args: Parameters<Engine["createSession"]>) => {
            created.push(args[0].id);
            stored();
            await held;
            return target.createSession(...args);
          };
        }
        const value = Reflect.get(target, key, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    }) as Engine;
    const handle = createHttpHandler(gated(engine).server);
    const answered = handle(post(initialize(3), H));
    await storing;
    handle.close();
    proceed();
    await refused(await answered, 3);
    expect(handle.sessions).toBe(0);
    expect(await memory.loadSession(created[0] as string)).toBeUndefined();
  });
});

const listening: HttpServer[] = [];
afterEach(async () => {
  for (const one of listening.splice(0)) await one.close();
});

describe("listen (node:http) once close() has begun", () => {
  it("answers the request in flight, and 503 to a 2026-07-28 request and an initialize sent after close() on its connection", async () => {
    const { server, running, release } = gated();
    const served = await listen(server, { port: 0, log: null });
    const port = Number(new URL(served.url).port);
    const call = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "slow", arguments: {}, _meta: META },
    });
    const init = JSON.stringify(initialize(2));
    const head = (extra: Record<string, string>, body: string) =>
      `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${Object.entries({
        ...extra,
        "content-length": String(Buffer.byteLength(body)),
      })
        .map(([name, value]) => `${name}: ${value}\r\n`)
        .join("")}\r\n${body}`;
    const socket = connect(port, "127.0.0.1");
    let text = "";
    socket.on("data", (chunk: Buffer) => {
      text += chunk.toString("latin1");
    });
    socket.write(head(headers2026("tools/call", "slow"), call));
    await running;
    const closed = served.close();
    // The kept-alive connection is busy, so it stays: a request sent on it now reaches the closing server.
    let seen = 0;
    const parsed = new Promise<void>((resolve) => {
      served.server.on("request", () => {
        if (++seen === 2) resolve();
      });
    });
    const later = JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "one", _meta: META } });
    socket.write(head(headers2026("tools/call", "one"), later) + head({ ...H, connection: "close" }, init));
    await parsed;
    release();
    await once(socket, "close");
    await closed;
    const [first, ...after] = text.split(/(?=HTTP\/1\.1 )/);
    expect(first).toMatch(/^HTTP\/1\.1 200 [\s\S]*"done"/);
    expect(after).toHaveLength(2);
    for (const [answer, id] of [
      [after[0], 3],
      [after[1], 2],
    ] as const) {
      expect(answer).toMatch(/^HTTP\/1\.1 503 [\s\S]*retry-after: 1\r\n/i);
      expect(answer).toMatch(new RegExp(`\\r\\n\\r\\n\\{"jsonrpc":"2\\.0","id":${id},"error":\\{"code":-32000,`));
    }
    expect(served.dispatcher.sessions).toBe(0);
  });
});
