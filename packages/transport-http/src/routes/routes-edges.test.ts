import { request as httpRequest } from "node:http";
import { createServer, DefinitionError } from "@toolsmith/core";
import { createMemoryEngine, EngineUnavailable } from "@toolsmith/core/engine";
import { describe, expect, it } from "vitest";
import { createHttpHandler } from "../doors/http-handler.js";
import { type ListenOptions, listen } from "../doors/node-server.js";
import { mcp, ok, open, raw, send, serve } from "./routes.test-util.js";

// The user's own routes: hostile requests, definitions refused, the web-standard handler, and the engine left alone.

describe("listen's routes, at their edges", () => {
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
    for (const maxBodyBytes of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(await refused({ "POST /x": { handler: () => ok(""), maxBodyBytes } })).toMatch(/maxBodyBytes must be/);
    }
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
