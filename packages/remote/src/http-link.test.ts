import { once } from "node:events";
import {
  createServer as createHttpServer,
  type Server as HttpServer,
  type IncomingMessage,
  type ServerResponse,
} from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createServer } from "@toolsmith/core";
import { listen } from "@toolsmith/transport-http";
import { afterEach, describe, expect, it } from "vitest";
import { createRemote, type RemoteOptions } from "./index.js";

// The gateway's HTTP link against a remote that misbehaves at the HTTP level: a handshake-era remote written on
// node:http whose tools/call answer each test writes itself. The gateway is served over HTTP to the official client.

const open: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  for (const item of open.splice(0).reverse()) await item.close();
});

type Answer = (res: ServerResponse, id: number, req: IncomingMessage, body: string) => void;

interface Raw {
  url: string;
  server: HttpServer;
  /** The tools/call bodies the remote read. */
  calls: string[];
  /** Every request's headers and path. */
  seen: { url: string; headers: IncomingMessage["headers"] }[];
  sockets: Set<Socket>;
  /** Settles once at most `n` of the remote's sockets are open. */
  socketsAtMost(n: number): Promise<void>;
}

async function raw(call: Answer, route?: (req: IncomingMessage, res: ServerResponse) => boolean): Promise<Raw> {
  const calls: string[] = [];
  const seen: Raw["seen"] = [];
  const sockets = new Set<Socket>();
  const server = createHttpServer(async (req, res) => {
    seen.push({ url: req.url ?? "", headers: req.headers });
    if (route?.(req, res)) return;
    if (req.method !== "POST") return void res.writeHead(405).end();
    let body = "";
    for await (const chunk of req) body += chunk;
    const message = JSON.parse(body) as { id?: number; method: string; params?: { protocolVersion?: string } };
    if (message.id === undefined) return void res.writeHead(202).end();
    const json = (result: unknown) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ jsonrpc: "2.0", id: message.id, result }));
    };
    if (message.method === "initialize") {
      return json({
        protocolVersion: message.params?.protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name: "raw", version: "1.0.0" },
      });
    }
    if (message.method === "tools/list") {
      return json({ tools: [{ name: "echo", description: "echo", inputSchema: { type: "object" } }] });
    }
    calls.push(body);
    server.emit("call");
    call(res, message.id, req, body);
  });
  const waiting = new Set<() => void>();
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.once("close", () => {
      sockets.delete(socket);
      for (const each of waiting) each();
    });
  });
  const socketsAtMost = (n: number) =>
    new Promise<void>((resolve) => {
      const check = () => {
        if (sockets.size > n) return;
        waiting.delete(check);
        resolve();
      };
      waiting.add(check);
      check();
    });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  open.unshift({
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  return { url, server, calls, seen, sockets, socketsAtMost };
}

const reply = (id: number, text: string) =>
  JSON.stringify({ jsonrpc: "2.0", id, result: { content: [{ type: "text", text }] } });

async function gateway(url: string, extra: Partial<RemoteOptions> = {}) {
  const remote = await createRemote({ url, era: "legacy", backoff: { initialMs: 10 }, ...extra } as RemoteOptions);
  open.push(remote);
  const app = createServer({ name: "gateway", version: "1.0.0" });
  app.setLogger(() => undefined);
  app.mount("r", remote.server);
  const http = await listen(app, { port: 0, log: null });
  open.push(http);
  const client = new Client({ name: "test", version: "1.0.0" }, { versionNegotiation: { mode: "legacy" } });
  await client.connect(new StreamableHTTPClientTransport(new URL(http.url)));
  open.push(client);
  return { client, remote };
}

const textOf = (result: { content?: unknown }) => (result.content as { text: string }[])[0]?.text;

/** Settles once `count` calls reached the remote. */
async function reached(r: Raw, count: number): Promise<void> {
  while (r.calls.length < count) await once(r.server, "call");
}

describe("the HTTP link's kept-alive sockets", () => {
  it("a tools/call the remote read before it dropped the reused socket is not sent again", async () => {
    const r = await raw((_res, _id, req) => void req.socket.destroy());
    const { client } = await gateway(r.url);
    const result = await client.callTool({ name: "r.echo", arguments: {} });
    expect(result.isError).toBe(true);
    expect(r.calls).toHaveLength(1);
  });

  it("a list on a reused socket the remote dropped before reading is sent again on a fresh one", async () => {
    let dropped = 0;
    const r = await raw(
      (res, id) => res.writeHead(200, { "content-type": "application/json" }).end(reply(id, "ok")),
      (req) => {
        // The first request on a reused socket after the first list: the remote closed it as it came.
        if (dropped === 0 && r.seen.length > 3 && req.method === "POST") {
          dropped++;
          req.socket.destroy();
          return true;
        }
        return false;
      },
    );
    const { client, remote } = await gateway(r.url);
    await remote.refresh();
    expect(dropped).toBe(1);
    expect(textOf(await client.callTool({ name: "r.echo", arguments: {} }))).toBe("ok");
  });
});

describe("the HTTP link's idle sockets", () => {
  it("are closed by the gateway, so a remote that closes them without a hint never closes one under a call", async () => {
    const r = await raw((res, id) => res.writeHead(200, { "content-type": "application/json" }).end(reply(id, "ok")));
    // This remote keeps idle sockets for ever, and says nothing of it: only the gateway closes them.
    r.server.keepAliveTimeout = 0;
    const { client } = await gateway(r.url);
    expect(textOf(await client.callTool({ name: "r.echo", arguments: {} }))).toBe("ok");
    await r.socketsAtMost(0);
    expect(textOf(await client.callTool({ name: "r.echo", arguments: {} }))).toBe("ok");
  }, 10_000);
});

describe("calls cancelled while the remote is answering", () => {
  it("100 calls cancelled mid-answer close their sockets, with no listener warning", async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
    process.on("warning", onWarning);
    try {
      // Each answer starts and never ends.
      const r = await raw((res) => void res.writeHead(200, { "content-type": "application/json" }).write("{"));
      const { client } = await gateway(r.url);
      const controllers = Array.from({ length: 100 }, () => new AbortController());
      const calls = controllers.map((controller) =>
        client.callTool({ name: "r.echo", arguments: {} }, { signal: controller.signal }).catch(() => "cancelled"),
      );
      await reached(r, 100);
      expect(r.sockets.size).toBeGreaterThanOrEqual(100);
      for (const controller of controllers) controller.abort();
      expect(new Set(await Promise.all(calls))).toEqual(new Set(["cancelled"]));
      // The gateway's own client connection to the remote may keep an idle socket or two; the calls' go.
      await r.socketsAtMost(2);
      expect(warnings).toEqual([]);
    } finally {
      process.off("warning", onWarning);
    }
  }, 30_000);
});

describe("a remote that refuses a call for now", () => {
  const DATE = "Tue, 08 Dec 2026 01:00:00 GMT";
  it.each([
    [429, "30", "", "HTTP 429 Too Many Requests; Retry-After: 30 s"],
    [429, "soon", "", "HTTP 429 Too Many Requests"],
    [503, DATE, "its engine is away", `HTTP 503 Service Unavailable: its engine is away; Retry-After: ${DATE}`],
  ])(
    "HTTP %i (Retry-After %j): an isError naming the remote and its wait, the call sent once, the link kept",
    async (status, after, said, expected) => {
      let refused = false;
      const r = await raw((res, id) => {
        res.writeHead(refused ? 200 : status, { "content-type": "application/json", "retry-after": after });
        if (refused) return void res.end(reply(id, "ok"));
        refused = true;
        res.end(said ? JSON.stringify({ jsonrpc: "2.0", id, error: { code: -32000, message: said } }) : "");
      });
      const { client } = await gateway(r.url);
      const result = await client.callTool({ name: "r.echo", arguments: {} });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toBe(`remote ${r.url} refused the call with ${expected}`);
      expect(r.calls).toHaveLength(1);
      // The next call goes out on the same session: one request, no new initialize.
      const before = r.seen.length;
      expect(textOf(await client.callTool({ name: "r.echo", arguments: {} }))).toBe("ok");
      expect(r.seen.length - before).toBe(1);
    },
  );
});

describe("a remote that redirects", () => {
  it("to another origin: not followed, and the configured headers never reach it", async () => {
    const other = await raw((res, id) =>
      res.writeHead(200, { "content-type": "application/json" }).end(reply(id, "x")),
    );
    for (const status of [301, 307, 308]) {
      let posts = 0;
      // initialize, its notification and the list are answered; each call is sent elsewhere.
      const r = await raw(
        () => undefined,
        (req, res) => {
          if (req.method !== "POST" || ++posts <= 3) return false;
          res.writeHead(status, { location: other.url }).end();
          return true;
        },
      );
      const { client } = await gateway(r.url, { headers: { "x-secret": "configured" } });
      const result = await client.callTool({ name: "r.echo", arguments: {} });
      expect(result.isError).toBe(true);
      expect(other.seen).toEqual([]);
    }
  });
});

describe("a remote that writes its answer a byte at a time", () => {
  it("costs the gateway its bytes, not an object per byte, while the answer is read", async () => {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const BYTES = 100_000;
    let written: () => void = () => undefined;
    const allWritten = new Promise<void>((resolve) => {
      written = resolve;
    });
    let end: () => void = () => undefined;
    const r = await raw((res, id) => {
      const text = reply(id, "x".repeat(BYTES));
      const cut = text.length - 10;
      res.writeHead(200, { "content-type": "application/json" });
      res.socket?.setNoDelay(true);
      let at = 0;
      // One byte a turn of the event loop: the gateway reads each as it comes, one chunk a byte.
      const tick = () => {
        if (at < cut) {
          res.write(text[at++]);
          return void setImmediate(tick);
        }
        end = () => res.end(text.slice(cut));
        written();
      };
      tick();
    });
    const { client } = await gateway(r.url);
    gc();
    const before = process.memoryUsage().heapUsed;
    const call = client.callTool({ name: "r.echo", arguments: {} });
    await allWritten;
    gc();
    const held = process.memoryUsage().heapUsed - before;
    end();
    expect(textOf(await call)).toHaveLength(BYTES);
    // The answer is 100 KB; kept as the chunks it came in, it held some 20 MB of objects.
    expect(held, `${held} bytes held`).toBeLessThan(8 * 1024 * 1024);
  }, 60_000);

  it("an event stream too: its bytes, not an object or a string per byte, while the event is read", async () => {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const BYTES = 256 * 1024;
    let written: () => void = () => undefined;
    const allWritten = new Promise<void>((resolve) => {
      written = resolve;
    });
    let end: () => void = () => undefined;
    const r = await raw((res, id) => {
      const bytes = Buffer.from(`data: ${reply(id, "x".repeat(BYTES))}\n\n`);
      const cut = bytes.byteLength - 10;
      res.writeHead(200, { "content-type": "text/event-stream" });
      byteAtATime(res, bytes.subarray(0, cut), () => {
        end = () => res.end(bytes.subarray(cut));
        written();
      });
    });
    const { client } = await gateway(r.url);
    gc();
    const before = process.memoryUsage().heapUsed;
    const call = client.callTool({ name: "r.echo", arguments: {} });
    await allWritten;
    gc();
    const held = process.memoryUsage().heapUsed - before;
    end();
    expect(textOf(await call)).toHaveLength(BYTES);
    // The event is 256 KB: held in its line buffer (grown by doubling), under 1 MB; held as a string a chunk, 4 MB.
    expect(held, `${held} bytes held`).toBeLessThan(2 * 1024 * 1024);
  }, 60_000);

  it("an event of 2 MiB, the bound, in small chunks is delivered whole; one byte more is refused, the link serves on", async () => {
    // The bound on one event is maxResultBytes and 64 KiB of framing; an event's bytes are its lines' bytes.
    const EVENT = 2 * 1024 * 1024;
    const MAX = EVENT - 64 * 1024;
    // Characters of one to four bytes, so that a byte at a time splits them.
    const text = `é€😀${"0123456789abcdef".repeat((MAX - 200) / 16)}`;
    const event = (id: number, bytes: number) => {
      const message = reply(id, text);
      const padding = bytes - Buffer.byteLength(`data: ${message}`);
      // JSON's own white space fills the event to the bytes asked for; its result stays under maxResultBytes.
      return Buffer.from(`data: ${message.slice(0, -1)}${" ".repeat(padding)}}\n\n`);
    };
    let calls = 0;
    const r = await raw((res, id) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      calls++;
      if (calls === 1) inChunks(res, event(id, EVENT), 61, () => res.end());
      else if (calls === 2) res.end(event(id, EVENT + 1));
      else res.end(`data: ${reply(id, "next")}\n\n`);
    });
    const { client } = await gateway(r.url, { maxResultBytes: MAX });
    const whole = await client.callTool({ name: "r.echo", arguments: {} });
    expect(whole.isError).not.toBe(true);
    expect(textOf(whole) === text).toBe(true);
    const over = await client.callTool({ name: "r.echo", arguments: {} });
    expect(over.isError).toBe(true);
    expect(textOf(over)).toBe(`remote ${r.url} answered with more than ${MAX} bytes`);
    expect(textOf(await client.callTool({ name: "r.echo", arguments: {} }))).toBe("next");
  }, 300_000);
});

/** Writes `bytes` `size` bytes a turn of the event loop, so that the gateway reads each as a chunk of its own. */
function inChunks(res: ServerResponse, bytes: Buffer, size: number, done: () => void): void {
  res.socket?.setNoDelay(true);
  let at = 0;
  const tick = () => {
    if (at >= bytes.byteLength) return done();
    res.write(bytes.subarray(at, at + size));
    at += size;
    setImmediate(tick);
  };
  tick();
}

/** Writes `bytes` one byte a turn of the event loop (a 2 MiB event so takes over a minute here). */
function byteAtATime(res: ServerResponse, bytes: Buffer, done: () => void): void {
  inChunks(res, bytes, 1, done);
}
