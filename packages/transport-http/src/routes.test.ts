import { once } from "node:events";
import { request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { connect } from "node:net";
import { createMemoryEngine, createServer, DefinitionError, EngineUnavailable, type LogEntry } from "@toolsmith/core";
import { afterEach, describe, expect, it } from "vitest";
import { createHttpHandler } from "./http-handler.js";
import { type HttpServer, type ListenOptions, listen } from "./listen.js";

// The user's own routes beside /mcp, through real HTTP requests against listen on 127.0.0.1:0.

const open: HttpServer[] = [];
afterEach(async () => {
  for (const listening of open.splice(0)) await listening.close();
});

function mcp(logged: LogEntry[] = []) {
  const server = createServer({ name: "routes", version: "1", logger: (entry) => logged.push(entry) });
  server.tool({ name: "one", description: "One", handler: () => "1" });
  return server;
}

async function serve(routes: ListenOptions["routes"], options: ListenOptions = {}, logged?: LogEntry[]) {
  const listening = await listen(mcp(logged), { port: 0, log: null, routes, ...options });
  open.push(listening);
  return new URL(listening.url);
}

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

// node:http, so the Host header and the body's pacing are the test's to choose.
async function send(
  base: URL,
  method: string,
  path: string,
  headers: Record<string, string | number> = {},
  body?: string | Buffer,
): Promise<Answer> {
  const req = httpRequest({ host: base.hostname, port: base.port, method, path, headers });
  req.end(body);
  const [res] = (await once(req, "response")) as [import("node:http").IncomingMessage];
  let text = "";
  for await (const chunk of res) text += String(chunk);
  return { status: res.statusCode ?? 0, headers: res.headers, body: text };
}

const ok = (text: string) => new Response(text, { headers: { "content-type": "text/plain" } });

describe("listen's routes", () => {
  it("serve GET and POST beside /mcp: the raw body, the query, headers and cookies both ways", async () => {
    const seen: { method: string; url: string; bytes: number[]; signature: string | null }[] = [];
    const base = await serve({
      "GET /status": () => Response.json({ up: true }, { headers: { "x-one": "1" } }),
      "POST /hooks/github": async (request) => {
        seen.push({
          method: request.method,
          url: request.url,
          bytes: [...new Uint8Array(await request.arrayBuffer())],
          signature: request.headers.get("x-hub-signature-256"),
        });
        const response = new Response(null, { status: 204 });
        response.headers.append("set-cookie", "a=1");
        response.headers.append("set-cookie", "b=2");
        return response;
      },
    });
    const status = await send(base, "GET", "/status?verbose=1");
    expect([status.status, status.headers["x-one"], JSON.parse(status.body)]).toEqual([200, "1", { up: true }]);
    // A byte order mark and bytes that are not UTF-8 reach the handler as sent (a signature is over the raw bytes).
    const raw = Buffer.from([0xef, 0xbb, 0xbf, 0x7b, 0xff, 0x7d]);
    const hook = await send(base, "POST", "/hooks/github?delivery=7", { "x-hub-signature-256": "sha256=ab" }, raw);
    expect(hook.status).toBe(204);
    expect(hook.headers["set-cookie"]).toEqual(["a=1", "b=2"]);
    expect(seen).toEqual([
      { method: "POST", url: `http://${base.host}/hooks/github?delivery=7`, bytes: [...raw], signature: "sha256=ab" },
    ]);
    // The MCP endpoint is as it was.
    expect((await send(base, "GET", "/mcp")).status).not.toBe(404);
  });

  it("a wrong method is 405 with Allow (HEAD for a GET route); an unknown path is 404 as before", async () => {
    const base = await serve({
      "GET /status": () => ok("up"),
      "POST /status": () => ok("posted"),
      "PUT /x": () => ok(""),
    });
    const wrong = await send(base, "DELETE", "/status");
    expect([wrong.status, wrong.headers.allow, wrong.body]).toEqual([405, "GET, POST, HEAD", ""]);
    expect((await send(base, "GET", "/x")).headers.allow).toBe("PUT");
    const unknown = await send(base, "GET", "/nothing");
    expect([unknown.status, unknown.body]).toEqual([404, "Not found"]);
    // Exact paths: no trailing-slash or case variant.
    expect((await send(base, "GET", "/status/")).status).toBe(404);
    expect((await send(base, "GET", "/Status")).status).toBe(404);
  });

  it("HEAD runs the GET route (it sees HEAD) and sends its status and headers, never its body", async () => {
    const methods: string[] = [];
    const base = await serve({
      "GET /page": (request) => {
        methods.push(request.method);
        return new Response("<p>hello</p>", { status: 203, headers: { "content-type": "text/html", "x-page": "1" } });
      },
    });
    const head = await send(base, "HEAD", "/page");
    expect([head.status, head.headers["x-page"], head.headers["content-type"], head.body]).toEqual([
      203,
      "1",
      "text/html",
      "",
    ]);
    expect(methods).toEqual(["HEAD"]);
  });

  it("a /* route serves the paths under its prefix, the longest prefix first", async () => {
    const base = await serve({
      "GET /static/*": (request) => ok(`static ${new URL(request.url).pathname}`),
      "GET /static/admin/*": () => ok("admin"),
    });
    expect((await send(base, "GET", "/static/app/main.js")).body).toBe("static /static/app/main.js");
    expect((await send(base, "GET", "/static/admin/users")).body).toBe("admin");
    expect((await send(base, "GET", "/static")).status).toBe(404);
    expect((await send(base, "GET", "/staticx/a")).status).toBe(404);
  });

  it("go through the Host/Origin checks unless a route opts out with anyHost", async () => {
    const base = await serve({
      "GET /status": () => ok("up"),
      "POST /hook": { handler: () => ok("hooked"), anyHost: true },
    });
    const rebound = await send(base, "GET", "/status", { host: "evil.example.com" });
    expect(rebound.status).toBe(403);
    expect(rebound.body).toContain("allowedHosts");
    expect((await send(base, "GET", "/status", { origin: "http://evil.example.com" })).status).toBe(403);
    // Even the 405 of a checked path says nothing to a refused Host.
    expect((await send(base, "DELETE", "/status", { host: "evil.example.com" })).status).toBe(403);
    const hook = await send(base, "POST", "/hook", { host: "10.1.2.3:8080", origin: "https://github.com" }, "{}");
    expect([hook.status, hook.body]).toEqual([200, "hooked"]);
  });

  it("a body over maxBodyBytes is 413 (declared or chunked) and the handler never runs; a route may raise it", async () => {
    let runs = 0;
    const base = await serve(
      {
        "POST /small": () => {
          runs++;
          return ok("small");
        },
        "POST /big": {
          handler: async (request) => ok(String((await request.arrayBuffer()).byteLength)),
          maxBodyBytes: 64,
        },
      },
      { maxBodyBytes: 16 },
    );
    const declared = await send(base, "POST", "/small", {}, "x".repeat(17));
    expect([declared.status, declared.body]).toEqual([413, "Request body over 16 bytes\n"]);
    // Chunked: no Content-Length to read, so the bytes are counted as they come.
    const req = httpRequest({ host: base.hostname, port: base.port, method: "POST", path: "/small" });
    req.write("x".repeat(10));
    req.end("x".repeat(10));
    const [res] = (await once(req, "response")) as [import("node:http").IncomingMessage];
    res.resume();
    expect(res.statusCode).toBe(413);
    expect(runs).toBe(0);
    expect((await send(base, "POST", "/small", {}, "x".repeat(16))).status).toBe(200);
    expect((await send(base, "POST", "/big", {}, "x".repeat(64))).body).toBe("64");
    expect((await send(base, "POST", "/big", {}, "x".repeat(65))).status).toBe(413);
  });

  it("a throwing, rejecting or non-Response handler (or an error or spent Response) is 500 with a generic body, logged through the server's logger", async () => {
    const logged: LogEntry[] = [];
    const base = await serve(
      {
        "GET /throws": () => {
          throw new Error("secret detail");
        },
        "GET /rejects": async () => Promise.reject(new Error("async secret")),
        "GET /nothing": (() => undefined) as never,
        "GET /error": () => Response.error(),
        "GET /used": async () => {
          const used = new Response("read already");
          await used.text();
          return used;
        },
        "GET /status": () => ok("up"),
      },
      {},
      logged,
    );
    for (const path of ["/throws", "/rejects", "/nothing", "/error", "/used"]) {
      const failed = await send(base, "GET", path);
      expect([failed.status, failed.body]).toEqual([500, "Internal Server Error\n"]);
    }
    expect(logged.map((entry) => [entry.level, entry.message.split("\n")[0]])).toEqual([
      ["error", 'Route "GET /throws" failed (answered 500): Error: secret detail'],
      ["error", 'Route "GET /rejects" failed (answered 500): Error: async secret'],
      [
        "error",
        'Route "GET /nothing" failed (answered 500): TypeError: the handler returned undefined, not a Response',
      ],
      ["error", 'Route "GET /error" failed (answered 500): TypeError: the handler returned Response.error()'],
      [
        "error",
        'Route "GET /used" failed (answered 500): TypeError: the handler returned a Response whose body was read',
      ],
    ]);
    // The server lives on.
    expect((await send(base, "GET", "/status")).body).toBe("up");
  });

  it("a Response node:http refuses to send (a DEL in a header) cuts that connection, never hangs it", async () => {
    const base = await serve({
      "GET /bad": () => new Response("x", { headers: { "x-bad": "a\u007fb" } }),
      "GET /status": () => ok("up"),
    });
    const req = httpRequest({ host: base.hostname, port: base.port, path: "/bad" });
    req.end();
    const [error] = (await once(req, "error")) as [Error];
    expect(error.message).toMatch(/socket hang up/);
    expect((await send(base, "GET", "/status")).body).toBe("up");
  });

  it("a slow body is awaited while other requests are served, and reaches the handler whole", async () => {
    const base = await serve({
      "POST /upload": async (request) => ok(await request.text()),
      "GET /status": () => ok("up"),
    });
    const req = httpRequest({ host: base.hostname, port: base.port, method: "POST", path: "/upload" });
    req.write("first,");
    req.flushHeaders();
    // Meanwhile the server answers others.
    expect((await send(base, "GET", "/status")).body).toBe("up");
    req.end("second");
    const [res] = (await once(req, "response")) as [import("node:http").IncomingMessage];
    let text = "";
    for await (const chunk of res) text += String(chunk);
    expect(text).toBe("first,second");
  });

  it("a response that never ends is let go when the server closes (its body is cancelled)", async () => {
    let cancelled!: () => void;
    const gone = new Promise<void>((resolve) => {
      cancelled = resolve;
    });
    const listening = await listen(mcp(), {
      port: 0,
      log: null,
      routes: {
        "GET /forever": () =>
          new Response(
            new ReadableStream({
              start: (controller) => controller.enqueue(new TextEncoder().encode("tick\n")),
              cancel: () => cancelled(),
            }),
          ),
      },
    });
    const base = new URL(listening.url);
    const req = httpRequest({ host: base.hostname, port: base.port, path: "/forever" });
    req.end();
    const [res] = (await once(req, "response")) as [import("node:http").IncomingMessage];
    const [first] = (await once(res, "data")) as [Buffer];
    expect(first.toString()).toBe("tick\n");
    // The connection is cut under the client: it sees its response aborted.
    const ended = new Promise((resolve) => res.on("error", resolve).on("close", resolve));
    await listening.close();
    await ended;
    await gone;
  });

  it("an anyHost route answers a Host that is no host name 400, and one without Host (HTTP/1.0) as localhost", async () => {
    const base = await serve({ "GET /any": { handler: (request) => ok(request.url), anyHost: true } });
    const port = Number(base.port);
    for (const host of ["a b", "user@evil.example.com"]) {
      expect(await raw(port, `GET /any HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`)).toMatch(
        /^HTTP\/1\.1 400 [\s\S]*\r\n\r\nBad Request: the Host header is not a host name\n$/,
      );
    }
    expect(await raw(port, "GET /any HTTP/1.0\r\n\r\n")).toMatch(/\r\n\r\nhttp:\/\/localhost\/any$/);
  });

  it("a path with dot segments is matched as the handler reads it, so it never slips under a prefix", async () => {
    const base = await serve({ "GET /static/*": (request) => ok(new URL(request.url).pathname) });
    const port = Number(base.port);
    const at = (path: string) => raw(port, `GET ${path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`);
    expect(await at("/static/a/../b")).toMatch(/\r\n\r\n[0-9a-f]+\r\n\/static\/b\r\n/);
    for (const path of ["/static/../mcp", "/static/%2e%2e/etc/passwd", "/static/.%2E/x"]) {
      expect(await at(path)).toMatch(/^HTTP\/1\.1 404 /);
    }
  });

  it("the handler's request.signal aborts when its client goes away", async () => {
    let started!: () => void;
    const waiting = new Promise<void>((resolve) => {
      started = resolve;
    });
    const aborted = new Promise<void>((resolve) => {
      void serve({
        "POST /long": (request) => {
          request.signal.addEventListener("abort", () => resolve());
          started();
          return new Promise<Response>(() => undefined);
        },
      }).then((base) => {
        const req = httpRequest({ host: base.hostname, port: base.port, method: "POST", path: "/long" });
        req.on("error", () => undefined);
        req.end("x");
        void waiting.then(() => req.destroy());
      });
    });
    await aborted;
  });

  it("a route may not shadow the MCP endpoint, the health route or the metadata: a DefinitionError before binding", async () => {
    const refused = async (routes: ListenOptions["routes"], options: ListenOptions = {}) => {
      const error = await listen(mcp(), { port: 0, log: null, routes, ...options }).then(
        (listening) => {
          open.push(listening);
          return undefined;
        },
        (thrown: unknown) => thrown,
      );
      expect(error).toBeInstanceOf(DefinitionError);
      expect(() => createHttpHandler(mcp(), { routes, ...options })).toThrow(DefinitionError);
      return (error as Error).message;
    };
    expect(await refused({ "GET /mcp": () => ok("") })).toMatch(/"GET \/mcp" would shadow \/mcp/);
    expect(await refused({ "POST /healthz": () => ok("") })).toMatch(/shadow \/healthz/);
    expect(await refused({ "GET /*": () => ok("") })).toMatch(/shadow \/mcp/);
    expect(await refused({ "GET /api/*": () => ok("") }, { path: "/api/mcp" })).toMatch(/shadow \/api\/mcp/);
    expect(await refused({ "GET /livez": () => ok("") }, { healthPath: "/livez" })).toMatch(/shadow \/livez/);
    const metadata = { resourceMetadata: { authorizationServers: ["https://auth.example.com"] } };
    expect(await refused({ "GET /.well-known/*": () => ok("") }, metadata)).toMatch(/oauth-protected-resource/);
    for (const key of ["get /x", "GET x", "GET /x?y=1", "TRACE /x", "GET /a b", "GET  /x"]) {
      expect(await refused({ [key]: () => ok("") })).toMatch(/write it "METHOD \/path"/);
    }
    expect(await refused({ "GET /x": {} as never })).toMatch(/give a handler/);
    // Without the health route, its path is the user's.
    const base = await serve({ "GET /healthz": () => ok("mine") }, { healthPath: false });
    expect((await send(base, "GET", "/healthz")).body).toBe("mine");
  });

  it("are served by the web-standard handler alike, and never touch MCP sessions", async () => {
    const handle = createHttpHandler(mcp(), {
      routes: { "GET /status": () => ok("up"), "POST /echo": async (request) => ok(await request.text()) },
    });
    expect(await (await handle(new Request("http://localhost/status"))).text()).toBe("up");
    const echoed = await handle(new Request("http://localhost/echo", { method: "POST", body: "hi" }));
    expect(await echoed.text()).toBe("hi");
    const head = await handle(new Request("http://localhost/status", { method: "HEAD" }));
    expect([head.status, await head.text()]).toEqual([200, ""]);
    expect((await handle(new Request("http://evil.example.com/status"))).status).toBe(403);
    expect(handle.sessions).toBe(0);
    handle.close();
  });
});

describe("listen's routes and the engine", () => {
  it("answer while the engine is down, and never call it", async () => {
    const calls: string[] = [];
    const memory = createMemoryEngine();
    // An engine that cannot start, and says what else is asked of it.
    const engine = new Proxy(memory, {
      get(target, name, receiver) {
        if (name === "start") return () => Promise.reject(new EngineUnavailable("down for the test"));
        const value = Reflect.get(target, name, receiver);
        if (typeof value !== "function") return value;
        return (...args: unknown[]) => {
          calls.push(String(name));
          return (value as (...args: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    const server = createServer({ name: "down", version: "1", engine, logger: () => undefined });
    const listening = await listen(server, {
      port: 0,
      log: null,
      routes: { "GET /status": () => ok("up"), "POST /echo": async (request) => ok(await request.text()) },
    });
    open.push(listening);
    const base = new URL(listening.url);
    const before = calls.length;
    expect((await send(base, "GET", "/status")).body).toBe("up");
    expect((await send(base, "POST", "/echo", {}, "hi")).body).toBe("hi");
    expect(calls.slice(before)).toEqual([]);
  });
});

// One request on its own connection, its whole answer as text (the connection is closed by the server).
async function raw(port: number, request: string): Promise<string> {
  const socket = connect(port, "127.0.0.1");
  let text = "";
  socket.on("data", (chunk: Buffer) => {
    text += chunk.toString("latin1");
  });
  socket.write(request);
  await once(socket, "close");
  return text;
}
