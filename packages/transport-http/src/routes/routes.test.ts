import { once } from "node:events";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { createServer, type ErrorReport, type LogEntry } from "@toolsmith/core";
import { describe, expect, it } from "vitest";
import { listen } from "../doors/node-server.js";
import { mcp, ok, open, send, serve } from "./routes.test-util.js";

// The user's own routes beside /mcp, through real HTTP requests against listen on 127.0.0.1:0: how they are served.

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

  it("tell a handler the caller's address, as the remoteAddress option reads it (the socket's by default)", async () => {
    const seen: (string | undefined)[] = [];
    const handler = (_request: Request, info: { remoteAddress: string | undefined }) => {
      seen.push(info.remoteAddress);
      return ok("seen");
    };
    expect((await send(await serve({ "GET /who": handler }), "GET", "/who")).status).toBe(200);
    const behind = await serve(
      { "POST /who": handler },
      { remoteAddress: (request) => request.headers.get("x-test") ?? "none" },
    );
    expect((await send(behind, "POST", "/who", { "x-test": "10.1.2.3" }, "")).status).toBe(200);
    expect(seen).toEqual(["127.0.0.1", "10.1.2.3"]);
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
    const [res] = (await once(req, "response")) as [IncomingMessage];
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

  it("a handler that throws reaches a server that has only onError (no logger), with the error itself", async () => {
    const heard: [unknown, ErrorReport][] = [];
    const server = createServer({ name: "hook", version: "1", onError: (error, where) => heard.push([error, where]) });
    const thrown = new Error("secret detail");
    const listening = await listen(server, {
      port: 0,
      log: null,
      routes: {
        "GET /throws": () => {
          throw thrown;
        },
      },
    });
    open.push(listening);
    const failed = await send(new URL(listening.url), "GET", "/throws");
    expect([failed.status, failed.body]).toEqual([500, "Internal Server Error\n"]);
    expect(heard).toEqual([[thrown, { method: "GET /throws" }]]);
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
    const [res] = (await once(req, "response")) as [IncomingMessage];
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
    const [res] = (await once(req, "response")) as [IncomingMessage];
    const [first] = (await once(res, "data")) as [Buffer];
    expect(first.toString()).toBe("tick\n");
    // The connection is cut under the client: it sees its response aborted.
    const ended = new Promise((resolve) => res.on("error", resolve).on("close", resolve));
    await listening.close();
    await ended;
    await gone;
  });
});
