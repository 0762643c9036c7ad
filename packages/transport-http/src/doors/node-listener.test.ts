import { once } from "node:events";
import { Agent, createServer as createNodeServer, type IncomingMessage, request } from "node:http";
import { type AddressInfo, connect } from "node:net";
import { Writable } from "node:stream";
import { gzipSync } from "node:zlib";
import { createServer, ErrorCode, type LogEntry } from "@toolsmith/core";
import { createMemoryEngine, type Engine } from "@toolsmith/core/engine";
import { MetaKey } from "@toolsmith/core/transport";
import { afterEach, describe, expect, it } from "vitest";
import { AuthError } from "../checks/protection.js";
import type { HttpOptions } from "../dispatch/options.js";
import { createHttpHandler } from "./http-handler.js";
import { nodeListener } from "./node-listener.js";
import { type ListenOptions, listen } from "./node-server.js";

// The node:http front doors (`listen`, and `nodeListener` around a handler): what a raw client sees.

const META = { [MetaKey.protocolVersion]: "2026-07-28", [MetaKey.clientCapabilities]: {} };
const LIST = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: META } });
const HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": "2026-07-28",
  "mcp-method": "tools/list",
};

function mcpServer(logger?: (entry: LogEntry) => void) {
  const s = createServer({ name: "node", version: "1", ...(logger ? { logger } : {}) });
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
  "nodeListener(createHttpHandler)": (options) => servedByNodeListener(createHttpHandler(mcpServer(), options)),
};

/** `handler` behind `nodeListener` on a node:http server of its own on 127.0.0.1, closed after the test: its URL. */
async function servedByNodeListener(handler: ReturnType<typeof createHttpHandler>): Promise<URL> {
  const server = createNodeServer(nodeListener(handler));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanup.push(async () => {
    handler.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`);
}

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

  it("a body that starts with a byte order mark is read as the JSON after it, as the web-standard handler reads it", async () => {
    const url = await start({});
    const answered = await send(url, `\uFEFF${LIST}`);
    expect(answered.status).toBe(200);
    expect(JSON.parse(answered.body)).toMatchObject({ id: 1, result: { tools: [{ name: "t" }] } });
    const web = await createHttpHandler(mcpServer())(
      new Request(url, { method: "POST", headers: HEADERS, body: `\uFEFF${LIST}` }),
    );
    expect(web.status).toBe(200);
  });

  it("a compressed body is 415 with a JSON-RPC error naming Content-Encoding, not a parse error", async () => {
    const url = await start({});
    const gzipped = gzipSync(LIST);
    const req = request(url, {
      method: "POST",
      headers: { ...HEADERS, "content-encoding": "gzip", "content-length": String(gzipped.length) },
    });
    req.end(gzipped);
    const [response] = (await once(req, "response")) as [IncomingMessage];
    const refused = await read(response);
    expect(refused.status).toBe(415);
    expect(JSON.parse(refused.body)).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: {
        code: ErrorCode.InvalidRequest,
        message: "Content-Encoding gzip is not accepted; send the body uncompressed",
      },
    });
    expect((await send(url, LIST, { "content-encoding": "identity" })).status).toBe(200);
  });

  it("without allowedHosts, only loopback Host names pass; the 403 names the option", async () => {
    const url = await start({});
    const refused = await send(url, LIST, { host: "evil.example" });
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.body)).toMatchObject({ id: null, error: { code: -32000 } });
    expect(refused.body).toMatch(/Host not allowed: evil\.example\..*allowedHosts/);
    expect((await send(url, LIST, { host: `evil.example:${url.port}` })).status).toBe(403);
    expect((await send(url, LIST, { host: `127.0.0.1.evil.example:${url.port}` })).status).toBe(403);
    for (const host of [url.host, `localhost:${url.port}`, `[::1]:${url.port}`, "localhost", "LOCALHOST"]) {
      expect((await send(url, LIST, { host })).status, host).toBe(200);
    }
  });

  it("a browser Origin that is not loopback or allowed is 403, naming allowedOrigins", async () => {
    const url = await start({});
    const refused = await send(url, LIST, { origin: "http://evil.example" });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatch(/Origin not allowed: http:\/\/evil\.example; set the allowedOrigins option/);
    expect((await send(url, LIST, { origin: "null" })).status).toBe(403);
    expect((await send(url, LIST, { origin: "http://localhost:5173" })).status).toBe(200);
    expect((await send(url, LIST, { origin: `http://${url.host}` })).status).toBe(200);
  });

  it('allowedHosts: a list replaces the loopback names; "any" leaves Host to a proxy', async () => {
    const listed = await start({ allowedHosts: ["mcp.example.com"] });
    expect((await send(listed, LIST, { host: "mcp.example.com" })).status).toBe(200);
    expect((await send(listed, LIST, { host: "mcp.example.com", origin: "https://mcp.example.com" })).status).toBe(200);
    expect((await send(listed, LIST, { host: "mcp.example.com", origin: "https://evil.example" })).status).toBe(403);
    expect((await send(listed, LIST, { host: "evil.example" })).status).toBe(403);
    const any = await start({ allowedHosts: "any" });
    expect((await send(any, LIST, { host: "evil.example" })).status).toBe(200);
    // Origin is still checked: a page of another site may not call.
    expect((await send(any, LIST, { host: "mcp.example.com", origin: "http://evil.example" })).status).toBe(403);
  });

  it("an authenticate hook answering at once, or with a thenable, is served; its AuthError thrown at once is the refusal", async () => {
    const principal = { subject: "alice", scopes: [] };
    const fromAuthorization = (authorization: string | null) => {
      // biome-ignore lint/suspicious/noThenProperty: a thenable that is no Promise, which it exists to test.
      if (authorization === "Bearer later") return { then: (done: (value: unknown) => void) => done(principal) };
      if (authorization === "Bearer read-only") throw new AuthError(403, "this token cannot list tools");
      return authorization === "Bearer alice" ? principal : undefined;
    };
    const url = await start({ authenticate: Object.assign(() => undefined, { fromAuthorization }) as never });
    expect((await send(url, LIST, { authorization: "Bearer alice" })).status).toBe(200);
    expect((await send(url, LIST, { authorization: "Bearer later" })).status).toBe(200);
    expect((await send(url, LIST, { authorization: "Bearer read-only" })).status).toBe(403);
    expect((await send(url, LIST, { authorization: "Bearer mallory" })).status).toBe(401);
    expect((await send(url, LIST)).status).toBe(401);
  });
});

describe("listen on a host that is not loopback", () => {
  async function start(options: ListenOptions, logger?: (entry: LogEntry) => void) {
    const http = await listen(mcpServer(logger), { port: 0, host: "0.0.0.0", ...options });
    cleanup.push(() => http.close());
    return new URL(`http://127.0.0.1:${new URL(http.url).port}/mcp`);
  }

  it("says at start, through the server's logger, that allowedHosts is needed; Host is still loopback-only", async () => {
    const entries: LogEntry[] = [];
    const url = await start({ log: null }, (entry) => entries.push(entry));
    expect(entries).toHaveLength(1);
    expect(entries[0]?.level).toBe("warning");
    expect(entries[0]?.message).toMatch(/listening on 0\.0\.0\.0, but only loopback Host names .*set allowedHosts/);
    expect((await send(url, LIST, { host: "192.0.2.7" })).status).toBe(403);
    expect((await send(url, LIST)).status).toBe(200);
  });

  it("without a logger, says it on the log stream (never stdout); not at all once allowedHosts is set", async () => {
    const said: string[] = [];
    const log = new Writable({
      write(chunk, _encoding, callback) {
        said.push(String(chunk));
        callback();
      },
    });
    await start({ log });
    expect(said.join("")).toMatch(/set allowedHosts to the names clients use.*"any" when a proxy/);
    said.length = 0;
    const url = await start({ log, allowedHosts: ["192.0.2.7"] });
    expect(said.join("")).not.toMatch(/allowedHosts/);
    expect((await send(url, LIST, { host: "192.0.2.7" })).status).toBe(200);
  });
});

describe("a request the dispatcher fails (a bug, not an outage)", () => {
  // An engine whose createSession throws a plain Error: no outage (that is a 503), so `initialize` fails.
  function buggy(): Engine {
    const engine = createMemoryEngine();
    return new Proxy(engine, {
      get(target, property) {
        if (property === "createSession") {
          return () => {
            throw new Error("the engine's bug");
          };
        }
        const value = Reflect.get(target, property, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
  }
  const INITIALIZE = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } },
  });
  const SESSION_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };

  it("nodeListener answers 500 and the server's log (onError) hears why, once", async () => {
    const heard: unknown[] = [];
    const server = createServer({ name: "bug", version: "1", engine: buggy(), onError: (error) => heard.push(error) });
    const handler = createHttpHandler(server);
    const url = await servedByNodeListener(handler);
    const req = request(url, { method: "POST", headers: SESSION_HEADERS });
    req.end(INITIALIZE);
    const failed = await read(((await once(req, "response")) as [IncomingMessage])[0]);
    expect(failed).toEqual({ status: 500, body: "" });
    expect(heard.map(String)).toEqual(["Error: the engine's bug"]);
  });

  it("an authenticate hook that throws at once: nodeListener answers 500 and the server's log hears it once", async () => {
    const heard: unknown[] = [];
    const hook = new Error("the token service is down");
    const handler = createHttpHandler(
      createServer({ name: "hook", version: "1", onError: (error) => heard.push(error) }),
      {
        authenticate: Object.assign(() => undefined, {
          fromAuthorization: () => {
            throw hook;
          },
        }),
      },
    );
    const url = await servedByNodeListener(handler);
    expect(await send(url, LIST, { authorization: "Bearer alice" })).toEqual({ status: 500, body: "" });
    expect(heard).toEqual([hook]);
  });

  it.each([
    ["a string, thrown at once", () => Promise.resolve().then(() => "boom"), true],
    ["null, rejected", () => Promise.resolve(null), false],
    ["an object without a prototype, thrown at once", () => Promise.resolve(Object.create(null)), true],
  ])(
    "an authenticate hook whose throw is %s: each request 500 or rejected, its throw told once",
    async (_name, make, sync) => {
      const thrown: unknown = await make();
      const heard: unknown[] = [];
      const fromAuthorization = () => {
        if (sync) throw thrown;
        return Promise.reject(thrown);
      };
      const handler = createHttpHandler(
        createServer({ name: "hook", version: "1", onError: (error) => heard.push(error) }),
        { authenticate: Object.assign(() => undefined, { fromAuthorization }) },
      );
      const url = await servedByNodeListener(handler);
      const answers = await Promise.all([1, 2].map(() => send(url, LIST, { authorization: "Bearer alice" })));
      expect(answers).toEqual([1, 2].map(() => ({ status: 500, body: "" })));
      const web = new Request("http://127.0.0.1/mcp", { method: "POST", headers: HEADERS, body: LIST });
      web.headers.set("authorization", "Bearer alice");
      await expect(handler(web)).rejects.toBe(thrown);
      // An object is told once however often it is thrown; a string or null once per request it failed.
      expect(heard).toEqual(typeof thrown === "object" && thrown !== null ? [thrown] : [thrown, thrown, thrown]);
    },
  );

  it("the web-standard handler rejects with it, and the server's log hears it once (an authenticate hook's too)", async () => {
    const heard: unknown[] = [];
    const server = createServer({ name: "bug", version: "1", engine: buggy(), onError: (error) => heard.push(error) });
    const handle = createHttpHandler(server);
    const request = () =>
      new Request("http://127.0.0.1/mcp", { method: "POST", headers: SESSION_HEADERS, body: INITIALIZE });
    await expect(handle(request())).rejects.toThrow("the engine's bug");
    expect(heard.map(String)).toEqual(["Error: the engine's bug"]);
    handle.close();
    const hook = new Error("the token service is down");
    const guarded = createHttpHandler(
      createServer({ name: "hook", version: "1", onError: (error) => heard.push(error) }),
      {
        authenticate: () => {
          throw hook;
        },
      },
    );
    heard.length = 0;
    await expect(guarded(request())).rejects.toBe(hook);
    expect(heard).toEqual([hook]);
    guarded.close();
  });
});
