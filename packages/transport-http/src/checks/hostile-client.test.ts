import { Agent, createServer as createNodeServer, type IncomingMessage, request } from "node:http";
import type { AddressInfo } from "node:net";
import { createServer, LATEST_HANDSHAKE_VERSION } from "@toolsmith/core";
import { MetaKey } from "@toolsmith/core/transport";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createHttpHandler } from "../doors/http-handler.js";
import { nodeListener } from "../doors/node-listener.js";
import { listen } from "../doors/node-server.js";

// Issue 15's hot-path changes attacked by a hostile client over real sockets against listen().

const META = { [MetaKey.protocolVersion]: "2026-07-28", [MetaKey.clientCapabilities]: {} };
const JSON_ACCEPT = { "content-type": "application/json", accept: "application/json, text/event-stream" };

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

interface Answer {
  status: number;
  raw: string[];
  headers: IncomingMessage["headers"];
  body: string;
}

function send(url: URL, headers: Record<string, string>, body: string, agent?: Agent): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: "POST", headers, ...(agent ? { agent } : {}) }, async (res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of res) chunks.push(chunk as Buffer);
      resolve({
        status: res.statusCode ?? 0,
        raw: res.rawHeaders,
        headers: res.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      });
    });
    req.on("error", reject);
    req.end(body);
  });
}

async function serve(setup: (s: ReturnType<typeof createServer>) => void): Promise<URL> {
  const s = createServer({ name: "hostile", version: "1" });
  setup(s);
  const http = await listen(s, { port: 0, log: null });
  cleanup.push(() => http.close());
  return new URL(http.url);
}

function call2026(id: number, name: string, args: Record<string, unknown> = {}) {
  return {
    headers: { ...JSON_ACCEPT, "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": name },
    body: JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args, _meta: META } }),
  };
}

describe("a hostile client against listen()", () => {
  it("disconnecting mid-request aborts a slow 2026-07-28 tool's ctx.signal", async () => {
    let started!: () => void;
    const startedP = new Promise<void>((r) => (started = r));
    let aborted!: () => void;
    const abortedP = new Promise<void>((r) => (aborted = r));
    const url = await serve((s) =>
      s.tool({
        name: "slow",
        description: "waits for its signal",
        handler: async (_args, ctx) => {
          ctx.signal.addEventListener("abort", () => aborted());
          started();
          await abortedP;
          return "cancelled";
        },
      }),
    );
    const { headers, body } = call2026(1, "slow");
    const req = request(url, { method: "POST", headers });
    req.on("error", () => {});
    req.end(body);
    await startedP;
    req.destroy();
    await abortedP;
  });

  it("a fast tool answers at once, many times over one kept-alive socket, with exact headers", async () => {
    const text = "héllo ✓ 🚀 ünïcödé";
    const url = await serve((s) => s.tool({ name: "fast", description: "fast", handler: () => text }));
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    cleanup.push(async () => agent.destroy());
    for (let i = 1; i <= 20; i++) {
      const { headers, body } = call2026(i, "fast");
      const answer = await send(url, headers, body, agent);
      expect(answer.status).toBe(200);
      expect(answer.headers["content-type"]).toMatch(/^application\/json/);
      expect(Number(answer.headers["content-length"])).toBe(Buffer.byteLength(answer.body, "utf8"));
      const names = answer.raw.filter((_, j) => j % 2 === 0).map((n) => n.toLowerCase());
      expect(new Set(names).size).toBe(names.length);
      const reply = JSON.parse(answer.body) as { id: number; result: { content: { text: string }[] } };
      expect(reply.id).toBe(i);
      expect(reply.result.content[0]?.text).toBe(text);
    }
  });

  it("Accept values alternating valid and invalid across concurrent clients each get their own verdict", async () => {
    const url = await serve((s) => s.tool({ name: "fast", description: "fast", handler: () => "ok" }));
    const accepts = [
      ["application/json, text/event-stream", 200],
      ["application/json", 406],
      ["*/*", 200],
      ["text/event-stream", 406],
      ["application/*, text/*", 200],
      ["text/html", 406],
    ] as const;
    const answers = await Promise.all(
      Array.from({ length: 36 }, (_, i) => {
        const [accept] = accepts[i % accepts.length] as (typeof accepts)[number];
        const { headers, body } = call2026(i, "fast");
        return send(url, { ...headers, accept }, body);
      }),
    );
    for (const [i, answer] of answers.entries()) {
      expect(answer.status).toBe((accepts[i % accepts.length] as (typeof accepts)[number])[1]);
    }
  });

  it("two 2025-11-25 sessions interleaving POSTs never see each other's id or replies", async () => {
    const url = await serve((s) => s.tool({ name: "fast", description: "fast", handler: () => "ok" }));
    const init = (id: number) =>
      JSON.stringify({
        jsonrpc: "2.0",
        id,
        method: "initialize",
        params: {
          protocolVersion: LATEST_HANDSHAKE_VERSION,
          capabilities: {},
          clientInfo: { name: "c", version: "1" },
        },
      });
    const opened = await Promise.all([send(url, JSON_ACCEPT, init(1)), send(url, JSON_ACCEPT, init(2))]);
    const ids = opened.map((a) => a.headers["mcp-session-id"] as string);
    expect(ids[0]).toBeTruthy();
    expect(ids[1]).toBeTruthy();
    expect(ids[0]).not.toBe(ids[1]);
    for (const a of opened) {
      const names = a.raw.filter((_, j) => j % 2 === 0).map((n) => n.toLowerCase());
      expect(new Set(names).size).toBe(names.length);
    }
    const headersOf = (sid: string) => ({
      ...JSON_ACCEPT,
      "mcp-session-id": sid,
      "mcp-protocol-version": LATEST_HANDSHAKE_VERSION,
    });
    await Promise.all(
      ids.map((sid) =>
        send(url, headersOf(sid), JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })),
      ),
    );
    const calls = Array.from({ length: 30 }, (_, i) => {
      const sid = ids[i % 2] as string;
      return send(url, headersOf(sid), JSON.stringify({ jsonrpc: "2.0", id: 100 + i, method: "tools/list" })).then(
        (a) => ({ a, sid, i }),
      );
    });
    for (const { a, sid, i } of await Promise.all(calls)) {
      expect(a.status).toBe(200);
      expect(a.headers["mcp-session-id"]).toBe(sid);
      expect((JSON.parse(a.body) as { id: number }).id).toBe(100 + i);
      expect(Number(a.headers["content-length"])).toBe(Buffer.byteLength(a.body, "utf8"));
    }
  });

  it("handshake-era elicitation over a session's SSE reply works, and fails cleanly once the session is deleted", async () => {
    let elicited!: (outcome: string) => void;
    const url = await serve((s) =>
      s.tool({
        name: "ask",
        description: "asks the client",
        handler: async (_args, ctx) => {
          const outcome = ctx.elicit({ message: "Seat?", schema: { seat: z.string() } }).then(
            (r) => r.action,
            (e: Error) => `failed: ${e.message}`,
          );
          elicited?.(await outcome);
          return outcome;
        },
      }),
    );
    const opened = await send(
      url,
      JSON_ACCEPT,
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: LATEST_HANDSHAKE_VERSION,
          capabilities: { elicitation: {} },
          clientInfo: { name: "c", version: "1" },
        },
      }),
    );
    const sid = opened.headers["mcp-session-id"] as string;
    const headers = { ...JSON_ACCEPT, "mcp-session-id": sid, "mcp-protocol-version": LATEST_HANDSHAKE_VERSION };
    await send(url, headers, JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
    // Open the call's SSE stream and read events as they come.
    const res = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = request(url, { method: "POST", headers }, resolve);
      req.on("error", reject);
      req.end(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "ask", arguments: {} } }));
    });
    expect(res.headers["content-type"]).toBe("text/event-stream");
    expect(res.headers["mcp-session-id"]).toBe(sid);
    res.setEncoding("utf8");
    let buffered = "";
    const messages: Record<string, unknown>[] = [];
    let waiter: (() => void) | undefined;
    res.on("data", (chunk: string) => {
      buffered += chunk;
      let end = buffered.indexOf("\n\n");
      while (end >= 0) {
        const data = buffered
          .slice(0, end)
          .split("\n")
          .filter((l) => l.startsWith("data: "))
          .map((l) => l.slice(6))
          .join("");
        if (data) messages.push(JSON.parse(data) as Record<string, unknown>);
        buffered = buffered.slice(end + 2);
        end = buffered.indexOf("\n\n");
      }
      waiter?.();
    });
    const next = async (): Promise<Record<string, unknown>> => {
      while (messages.length === 0) await new Promise<void>((r) => (waiter = r));
      return messages.shift() as Record<string, unknown>;
    };
    const ask = await next();
    expect(ask.method).toBe("elicitation/create");
    const answered = await send(
      url,
      headers,
      JSON.stringify({ jsonrpc: "2.0", id: ask.id, result: { action: "decline" } }),
    );
    expect(answered.status).toBe(202);
    const result = await next();
    expect(result).toMatchObject({ id: 2, result: { content: [{ text: "decline" }] } });
    // A second call asks again; the session is deleted before the client answers: the ask fails, nothing hangs.
    const failed = new Promise<string>((r) => (elicited = r));
    const res2 = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = request(url, { method: "POST", headers }, resolve);
      req.on("error", reject);
      req.end(JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "ask", arguments: {} } }));
    });
    res2.resume();
    await new Promise<void>((resolve, reject) => {
      const del = request(url, { method: "DELETE", headers }, (r) => {
        r.resume();
        r.on("end", resolve);
      });
      del.on("error", reject);
      del.end();
    });
    expect(await failed).toMatch(/^failed: /);
  });

  it("a 2026-07-28 listen stream over a socket hears list changes, and its place is freed when the client vanishes", async () => {
    const s = createServer({ name: "hostile", version: "1" });
    s.tool({ name: "fast", description: "fast", handler: () => "ok" });
    const http = await listen(s, { port: 0, log: null, maxStreams: 1 });
    cleanup.push(() => http.close());
    const url = new URL(http.url);
    const headers = { ...JSON_ACCEPT, "mcp-protocol-version": "2026-07-28", "mcp-method": "subscriptions/listen" };
    const body = JSON.stringify({
      jsonrpc: "2.0",
      id: 7,
      method: "subscriptions/listen",
      params: { _meta: META, notifications: { toolsListChanged: true } },
    });
    const open = () =>
      new Promise<{ res: IncomingMessage; destroy: () => void }>((resolve, reject) => {
        const req = request(url, { method: "POST", headers }, (res) => {
          // Destroying the request aborts its response: expected here, not an error.
          res.on("error", () => {});
          resolve({ res, destroy: () => req.destroy() });
        });
        req.on("error", reject);
        req.end(body);
      });
    const first = await open();
    expect(first.res.statusCode).toBe(200);
    first.res.setEncoding("utf8");
    let seen = "";
    const until = (text: string) =>
      new Promise<void>((resolve) => {
        const check = () => {
          if (seen.includes(text)) {
            first.res.off("data", onData);
            resolve();
          }
        };
        const onData = (chunk: string) => {
          seen += chunk;
          check();
        };
        first.res.on("data", onData);
        check();
      });
    await until("notifications/subscriptions/acknowledged");
    s.registered("tool", "fast")?.disable();
    await until("notifications/tools/list_changed");
    const closed = new Promise((resolve) => first.res.once("close", resolve));
    first.destroy();
    await closed;
    // The server hears the close on its own time: ask until the place is free (each try waits for its answer).
    for (;;) {
      const again = await open();
      again.destroy();
      if (again.res.statusCode === 200) break;
      expect(again.res.statusCode).toBe(503);
    }
  });

  it("a fast 2026-07-28 call leaves no close listener on its response beyond node's own", async () => {
    const s = createServer({ name: "hostile", version: "1" });
    s.tool({ name: "fast", description: "fast", handler: () => "ok" });
    const handler = createHttpHandler(s);
    const inner = nodeListener(handler);
    const counts: Record<string, number> = {};
    const server = createNodeServer((req, res) => {
      // Counted once the reply is written: a listener left then would outlive the request on a kept-alive socket.
      res.once("finish", () => {
        counts[req.url ?? ""] = res.listenerCount("close");
      });
      inner(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    cleanup.push(async () => {
      handler.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    });
    const port = (server.address() as AddressInfo).port;
    const { headers, body } = call2026(1, "fast");
    const baseline = await send(new URL(`http://127.0.0.1:${port}/elsewhere`), headers, body);
    expect(baseline.status).toBe(404);
    const answer = await send(new URL(`http://127.0.0.1:${port}/mcp`), headers, body);
    expect(answer.status).toBe(200);
    expect(counts["/mcp"]).toBe(counts["/elsewhere"]);
  });

  it("a 2025-11-25 call's stream, cut by its client, resumes by Last-Event-ID under its own key", async () => {
    const url = await serve((s) =>
      s.tool({
        name: "ask",
        description: "asks the client",
        handler: async (_args, ctx) => (await ctx.elicit({ message: "Seat?", schema: { seat: z.string() } })).action,
      }),
    );
    const opened = await send(
      url,
      JSON_ACCEPT,
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: {
          protocolVersion: "2025-11-25",
          capabilities: { elicitation: {} },
          clientInfo: { name: "c", version: "1" },
        },
      }),
    );
    const sid = opened.headers["mcp-session-id"] as string;
    const headers = { ...JSON_ACCEPT, "mcp-session-id": sid, "mcp-protocol-version": "2025-11-25" };
    await send(url, headers, JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
    // Read SSE events (id and data) from a response until `count` have come.
    const eventsOf = (res: IncomingMessage) => {
      res.setEncoding("utf8");
      res.on("error", () => {});
      let buffered = "";
      const got: { id?: string; data: string }[] = [];
      let wake: (() => void) | undefined;
      res.on("data", (chunk: string) => {
        buffered += chunk;
        for (let end = buffered.indexOf("\n\n"); end >= 0; end = buffered.indexOf("\n\n")) {
          const lines = buffered.slice(0, end).split("\n");
          buffered = buffered.slice(end + 2);
          const id = lines.find((l) => l.startsWith("id: "))?.slice(4);
          const data = lines
            .filter((l) => l.startsWith("data: ") || l === "data:")
            .map((l) => l.slice(6))
            .join("");
          got.push(id === undefined ? { data } : { id, data });
        }
        wake?.();
      });
      return async (count: number) => {
        while (got.length < count) await new Promise<void>((r) => (wake = r));
        return got.slice(0, count);
      };
    };
    const req = request(url, { method: "POST", headers });
    req.on("error", () => {});
    const res = await new Promise<IncomingMessage>((resolve) => {
      req.on("response", resolve);
      req.end(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "ask", arguments: {} } }));
    });
    const [priming, ask] = await eventsOf(res)(2);
    expect(priming?.data).toBe("");
    const asked = JSON.parse(ask?.data ?? "") as { id: number; method: string };
    expect(asked.method).toBe("elicitation/create");
    // A second call in the same session has its own stream: resuming the first must not replay it.
    const other = request(url, { method: "POST", headers });
    other.on("error", () => {});
    const otherRes = await new Promise<IncomingMessage>((resolve) => {
      other.on("response", resolve);
      other.end(
        JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "ask", arguments: {} } }),
      );
    });
    const [, otherAsk] = await eventsOf(otherRes)(2);
    const otherId = (JSON.parse(otherAsk?.data ?? "") as { id: number }).id;
    cleanup.push(async () => void other.destroy());
    const cut = new Promise((resolve) => res.once("close", resolve));
    req.destroy();
    await cut;
    const resumed = await new Promise<IncomingMessage>((resolve, reject) => {
      const get = request(url, { method: "GET", headers: { ...headers, "last-event-id": priming?.id ?? "" } }, resolve);
      get.on("error", reject);
      get.end();
    });
    expect(resumed.statusCode).toBe(200);
    const read = eventsOf(resumed);
    expect(JSON.parse((await read(1))[0]?.data ?? "")).toMatchObject({ id: asked.id, method: "elicitation/create" });
    expect(otherId).not.toBe(asked.id);
    const answered = await send(
      url,
      headers,
      JSON.stringify({ jsonrpc: "2.0", id: asked.id, result: { action: "decline" } }),
    );
    expect(answered.status).toBe(202);
    expect(JSON.parse((await read(2))[1]?.data ?? "")).toMatchObject({
      id: 2,
      result: { content: [{ text: "decline" }] },
    });
    resumed.destroy();
  });
});
