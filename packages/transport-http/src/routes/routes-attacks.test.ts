import { once } from "node:events";
import { connect } from "node:net";
import { createServer, DefinitionError } from "@toolsmith/core";
import { describe, expect, it } from "vitest";
import { createHttpHandler } from "../doors/http-handler.js";
import { type ListenOptions, listen } from "../doors/node-server.js";
import { mcp, ok, open, raw, serve } from "./routes.test-util.js";

// What an attack on the routes, the health route and the Host check found: each case failed before its fix.

const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
});

// A POST to the MCP endpoint with the Host given, its whole answer as text.
const post = (port: number, host: string) =>
  raw(
    port,
    `POST /mcp HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: ${INITIALIZE.length}\r\nConnection: close\r\n\r\n${INITIALIZE}`,
  );

describe("the health route while closing", () => {
  it("answers 503 to GET and HEAD once the web-standard handler's close() has begun", async () => {
    const handle = createHttpHandler(mcp());
    expect((await handle(new Request("http://10.0.0.1/healthz"))).status).toBe(200);
    handle.close();
    const got = await handle(new Request("http://10.0.0.1/healthz"));
    expect([got.status, got.headers.get("cache-control"), await got.text()]).toEqual([503, "no-store", "closing\n"]);
    const head = await handle(new Request("http://10.0.0.1/healthz", { method: "HEAD" }));
    expect([head.status, await head.text()]).toEqual([503, ""]);
    expect((await handle(new Request("http://10.0.0.1/healthz", { method: "POST" }))).status).toBe(405);
  });

  it("answers 503 over node:http once listen's engine is closing", async () => {
    const base = await serve({});
    const port = Number(base.port);
    const probe = () => raw(port, "GET /healthz HTTP/1.1\r\nHost: 10.0.0.1\r\nConnection: close\r\n\r\n");
    expect(await probe()).toMatch(/^HTTP\/1\.1 200 [\s\S]*\r\n\r\nok\n$/);
    // What the HttpServer's close() does first, before it stops accepting connections.
    open[0]?.dispatcher.close();
    expect(await probe()).toMatch(/^HTTP\/1\.1 503 [\s\S]*\r\n\r\nclosing\n$/);
  });
});

describe("the health route while listen's close() drains", () => {
  it("refuses a probe on a new connection at once, and answers 503 closing on a connection already open", async () => {
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let arrived = () => {};
    const reached = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    const listening = await listen(mcp(), {
      port: 0,
      log: null,
      routes: {
        "GET /slow": () => {
          arrived();
          return held.then(() => ok("slow"));
        },
      },
    });
    const port = Number(new URL(listening.url).port);
    // A connection busy with a route's request when close() begins stays open until that request is answered.
    const busy = connect(port, "127.0.0.1");
    let text = "";
    busy.on("data", (chunk: Buffer) => {
      text += chunk.toString("latin1");
    });
    await once(busy, "connect");
    busy.write("GET /slow HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    await reached;
    const closed = listening.close();
    const fresh = connect(port, "127.0.0.1");
    const [refused] = (await once(fresh, "error")) as [NodeJS.ErrnoException];
    expect(refused.code).toBe("ECONNREFUSED");
    // The probe must have reached the server before the slow answer goes: once that answer is written the connection
    // is idle, and a draining server closes idle connections.
    const probed = new Promise<void>((resolve) => {
      listening.server.on("request", (request: { url?: string }) => {
        if (request.url === "/healthz") resolve();
      });
    });
    busy.write("GET /healthz HTTP/1.1\r\nHost: 10.0.0.1\r\nConnection: close\r\n\r\n");
    await probed;
    release();
    await once(busy, "close");
    await closed;
    const [slow, health] = text.split(/(?=HTTP\/1\.1 )/);
    expect(slow).toMatch(/^HTTP\/1\.1 200 [\s\S]*\r\n\r\n(4\r\n)?slow/);
    expect(health).toMatch(/^HTTP\/1\.1 503 [\s\S]*\r\n\r\nclosing\n$/);
  });
});

describe("a Host that is no host name, where Host is not checked against a list", () => {
  it("is 400 at the MCP endpoint with allowedHosts 'any' and authenticate, never an empty 500", async () => {
    let authenticated = 0;
    const authenticate = () => {
      authenticated++;
      return { subject: "alice", scopes: [] };
    };
    const base = await serve({}, { allowedHosts: "any", authenticate });
    const port = Number(base.port);
    for (const host of ["a b", "user@example.com", "1.2.3.999", "example.com/x?", 'x", error="forged']) {
      expect(await post(port, host)).toMatch(
        /^HTTP\/1\.1 400 [\s\S]*\r\n\r\n\{"jsonrpc":"2\.0","id":null,"error":\{"code":-32600,"message":"Bad Request: the Host header is not a host name"\}\}$/,
      );
    }
    expect(authenticated).toBe(0);
    // A host name with a port, an IPv6 literal: served as before.
    expect(await post(port, "mcp.example.com:8443")).toMatch(/^HTTP\/1\.1 200 /);
    expect(await post(port, "[::1]:80")).toMatch(/^HTTP\/1\.1 200 /);
    expect(authenticated).toBe(2);
  });

  it("is 400 with a remoteAddress hook too (it is given a Request made from the Host)", async () => {
    const base = await serve({}, { allowedHosts: "any", remoteAddress: () => "10.0.0.9" });
    expect(await post(Number(base.port), "a b")).toMatch(/^HTTP\/1\.1 400 /);
  });

  it("never moves a route handler's URL off the path that was matched (a Host carrying a path)", async () => {
    const seen: string[] = [];
    const handler = (request: Request) => {
      seen.push(request.url);
      return ok(new URL(request.url).pathname);
    };
    const base = await serve(
      { "GET /static/*": handler, "GET /hook": { anyHost: true, handler } },
      { allowedHosts: "any" },
    );
    const port = Number(base.port);
    const at = (path: string, host: string) =>
      raw(port, `GET ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
    expect(await at("/static/a.txt", "x/../../etc/passwd#")).toMatch(/^HTTP\/1\.1 400 /);
    expect(await at("/hook", "x/admin?")).toMatch(/^HTTP\/1\.1 400 /);
    expect(await at("/hook", "x\\admin")).toMatch(/^HTTP\/1\.1 400 /);
    // Empty: "http://" + "" + "/hook" would be read as host "hook", path "/".
    expect(await at("/hook", "")).toMatch(/^HTTP\/1\.1 400 /);
    expect(seen).toEqual([]);
    expect(await at("/static/a.txt", "files.example.com")).toMatch(/\r\n\/static\/a\.txt\r\n/);
    expect(seen).toEqual(["http://files.example.com/static/a.txt"]);
  });
});

describe("a path with backslashes", () => {
  it("is matched as the handler's URL reads it (a backslash is a slash), so it never slips under a prefix", async () => {
    const seen: string[] = [];
    const base = await serve({
      "GET /static/*": (request) => {
        seen.push(new URL(request.url).pathname);
        return ok("file");
      },
    });
    const at = (path: string) =>
      raw(Number(base.port), `GET ${path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`);
    expect(await at("/static/x\\..\\..\\etc\\passwd")).toMatch(/^HTTP\/1\.1 404 /);
    expect(await at("/static/x\\..\\..\\mcp")).toMatch(/^HTTP\/1\.1 404 /);
    expect(seen).toEqual([]);
    // Under the prefix once resolved: served, the handler reading the same path.
    expect(await at("/static\\a\\b")).toMatch(/^HTTP\/1\.1 200 /);
    expect(seen).toEqual(["/static/a/b"]);
  });

  it("is a DefinitionError in a route's key, as is a dot segment: such a route would never be matched", () => {
    for (const [key, read] of [
      ["GET /a/../status", "/status"],
      ["GET /a\\b", "/a/b"],
      ["GET /files/%2e%2e/*", "/"],
    ] as const) {
      expect(() => createHttpHandler(mcp(), { routes: { [key]: () => ok("") } })).toThrow(
        `Route "${key}": write the path as a URL reads it (${read}), or it is never matched`,
      );
    }
    // A dot that is no segment is a path like any other.
    const handle = createHttpHandler(mcp(), { routes: { "GET /.well-known/security.txt": () => ok("contact") } });
    handle.close();
  });
});

describe("the session and stream limits", () => {
  it("are a DefinitionError unless whole numbers (NaN would be no limit at all), before listen binds", async () => {
    for (const [name, value] of [
      ["maxSessions", Number.NaN],
      ["maxSessionsPerCaller", -1],
      ["maxStreams", 2.5],
      ["maxStreamsPerCaller", Number.POSITIVE_INFINITY],
      ["sessionIdleMs", 0],
      ["sessionIdleMs", Number.NaN],
    ] as const) {
      const options: ListenOptions = { port: 0, log: null, [name]: value };
      expect(() => createHttpHandler(mcp(), options)).toThrow(DefinitionError);
      const error = await listen(mcp(), options).then(
        (listening) => {
          open.push(listening);
          return undefined;
        },
        (thrown: unknown) => thrown,
      );
      expect(error).toBeInstanceOf(DefinitionError);
      expect((error as Error).message).toMatch(new RegExp(`^${name} must be a whole number`));
    }
  });
});

describe("the server's maxBodyBytes", () => {
  it("is a DefinitionError unless a whole number of bytes, in listen and createHttpHandler alike", async () => {
    for (const maxBodyBytes of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, "1024" as unknown as number]) {
      const options: ListenOptions = { port: 0, log: null, maxBodyBytes };
      expect(() => createHttpHandler(mcp(), options)).toThrow(DefinitionError);
      const error = await listen(mcp(), options).then(
        (listening) => {
          open.push(listening);
          return undefined;
        },
        (thrown: unknown) => thrown,
      );
      expect(error).toBeInstanceOf(DefinitionError);
      expect((error as Error).message).toBe(
        `maxBodyBytes must be a whole number of bytes, not ${String(maxBodyBytes)}`,
      );
    }
    // Zero is a limit: every body is refused.
    const zero = createHttpHandler(createServer({ name: "z", version: "1" }), { maxBodyBytes: 0 });
    const refused = await zero(
      new Request("http://localhost/mcp", {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: INITIALIZE,
      }),
    );
    expect(refused.status).toBe(413);
    zero.close();
  });
});

// The responses in what a connection received, read by HTTP/1.1's framing (RFC 9112 section 6): Content-Length,
// chunked, or to the end; `cut` for one the connection ended inside. A body that runs into the next response shows.
function frames(received: string): { status: string; framing: string; body: string; cut?: boolean }[] {
  const found: { status: string; framing: string; body: string; cut?: boolean }[] = [];
  let text = received;
  while (text.length > 0) {
    const end = text.indexOf("\r\n\r\n");
    const head = text.slice(0, end).split("\r\n");
    const status = head[0] ?? "";
    const header = (name: string) =>
      head
        .find((line) => line.toLowerCase().startsWith(`${name}:`))
        ?.slice(name.length + 1)
        .trim();
    const [length, coding] = [header("content-length"), header("transfer-encoding")];
    const framing = [length && `length ${length}`, coding && `coding ${coding}`].filter(Boolean).join(", ");
    text = text.slice(end + 4);
    let body = "";
    let cut = end < 0;
    if (coding === "chunked") {
      for (let size = -1; size !== 0 && !cut; ) {
        const line = text.indexOf("\r\n");
        size = Number.parseInt(text.slice(0, line), 16);
        cut = line < 0 || Number.isNaN(size) || text.length < line + 4 + size;
        body += text.slice(line + 2, line + 2 + size);
        text = text.slice(line + 4 + size);
      }
    } else {
      body = length === undefined ? text : text.slice(0, Number(length));
      text = text.slice(body.length);
      cut ||= length !== undefined && body.length < Number(length);
    }
    found.push(cut ? { status, framing, body, cut } : { status, framing, body });
    if (cut) break;
  }
  return found;
}

describe("a route's Response on node:http, framed by node alone", () => {
  it("never lets a body run past its Content-Length or into the next response on the connection", async () => {
    const base = await serve({
      "GET /ok": () => new Response("hello", { headers: { "content-length": "5" } }),
      "GET /short": () => new Response("hello", { headers: { "content-length": "100" } }),
      "GET /long": () => new Response("hello world", { headers: { "content-length": "2" } }),
      "GET /none": () => new Response(null, { headers: { "content-length": "100" } }),
      "GET /both": () => new Response("hello", { headers: { "transfer-encoding": "chunked", "content-length": "5" } }),
      "GET /gzip": () => new Response("hello", { headers: { "transfer-encoding": "gzip" } }),
      "GET /twice": () => new Response("hello", { headers: { "content-length": "5, 5" } }),
    });
    const port = Number(base.port);
    // Two requests on one connection: the first's answer must end where its framing says.
    const pipelined = (path: string) =>
      raw(
        port,
        `GET ${path} HTTP/1.1\r\nHost: localhost\r\n\r\nGET /ok HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`,
      ).then((received) => frames(received).map(({ status, framing, body, cut }) => [status, framing, body, cut]));
    const ok = ["HTTP/1.1 200 OK", "length 5", "hello", undefined];
    expect(await pipelined("/ok")).toEqual([ok, ok]);
    // A body shorter than its length cuts the connection (the client sees it cut), never waits on the next answer.
    expect(await pipelined("/short")).toEqual([["HTTP/1.1 200 OK", "length 100", "hello", true]]);
    // Longer: cut before a byte past the length is sent.
    expect(await pipelined("/long")).toEqual([]);
    // No body, or a length that is no whole number, or a Transfer-Encoding of the handler's: node frames it itself.
    expect(await pipelined("/none")).toEqual([["HTTP/1.1 200 OK", "coding chunked", "", undefined], ok]);
    expect(await pipelined("/both")).toEqual([ok, ok]);
    expect(await pipelined("/gzip")).toEqual([["HTTP/1.1 200 OK", "coding chunked", "hello", undefined], ok]);
    expect(await pipelined("/twice")).toEqual([["HTTP/1.1 200 OK", "coding chunked", "hello", undefined], ok]);
    // HEAD keeps the GET's Content-Length: it sends no body, so it promises none.
    const head = await raw(port, "HEAD /short HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
    expect(head).toMatch(/^HTTP\/1\.1 200 [\s\S]*content-length: 100\r\n[\s\S]*\r\n\r\n$/);
  });
});
