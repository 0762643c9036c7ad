import { once } from "node:events";
import { createServer as createNodeServer, type IncomingMessage, request } from "node:http";
import type { AddressInfo } from "node:net";
import { createServer } from "@toolsmith/core";
import { MetaKey } from "@toolsmith/core/transport";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { HttpOptions } from "../dispatch/options.js";
import { createHttpHandler } from "../doors/http-handler.js";
import { nodeListener } from "../doors/node-listener.js";

// One caller cannot take every session or stream: beside the global limits, each caller (its authenticated
// subject, else its address) holds at most a share of them (a quarter by default).

const URL_ = "http://127.0.0.1:3000/mcp";
const META = { [MetaKey.protocolVersion]: "2026-07-28", [MetaKey.clientCapabilities]: {} };
const H = { "content-type": "application/json", accept: "application/json, text/event-stream" };
const INIT = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } },
});
const LISTEN = JSON.stringify({
  jsonrpc: "2.0",
  id: 2,
  method: "subscriptions/listen",
  params: { _meta: META, notifications: { toolsListChanged: true } },
});
const LISTEN_HEADERS = { ...H, "mcp-protocol-version": "2026-07-28", "mcp-method": "subscriptions/listen" };

function handler(options: HttpOptions = {}) {
  const s = createServer({ name: "limits", version: "1" });
  s.tool({ name: "t", description: "t", handler: () => "ok" });
  return createHttpHandler(s, {
    authenticate: (request) => {
      const who = request.headers.get("authorization")?.slice("Bearer ".length);
      return who ? { subject: who, scopes: [] } : undefined;
    },
    ...options,
  });
}

type Handle = ReturnType<typeof handler>;
const as = (who: string, headers: Record<string, string> = H) => ({ ...headers, authorization: `Bearer ${who}` });

async function initialize(handle: Handle, who: string): Promise<Response> {
  return handle(new Request(URL_, { method: "POST", headers: as(who), body: INIT }));
}

async function session(handle: Handle, who: string): Promise<string> {
  const response = await initialize(handle, who);
  expect(response.status, `${who}'s initialize`).toBe(200);
  return response.headers.get("mcp-session-id") as string;
}

const getStream = (handle: Handle, who: string, id: string) =>
  handle(new Request(URL_, { method: "GET", headers: as(who, { accept: "text/event-stream", "mcp-session-id": id }) }));

const listen = (handle: Handle, who: string) =>
  handle(new Request(URL_, { method: "POST", headers: as(who, LISTEN_HEADERS), body: LISTEN }));

async function refusal(response: Response): Promise<string> {
  expect(response.status).toBe(503);
  return ((await response.json()) as { error: { message: string } }).error.message;
}

afterEach(() => {
  vi.useRealTimers();
});

describe("per-caller limits, by authenticated subject", () => {
  it("sessions: bob at his share gets 503 while alice still gets in; deleting one frees it", async () => {
    const handle = handler({ maxSessions: 8 });
    const bobs = [await session(handle, "bob"), await session(handle, "bob")];
    expect(await refusal(await initialize(handle, "bob"))).toMatch(
      /Too many open sessions for one caller \(at most 2\)/,
    );
    await session(handle, "alice");
    const deleted = await handle(
      new Request(URL_, { method: "DELETE", headers: as("bob", { "mcp-session-id": bobs[0] as string }) }),
    );
    expect(deleted.status).toBe(204);
    await session(handle, "bob");
    expect((await initialize(handle, "bob")).status).toBe(503);
    expect(handle.sessions).toBe(3);
  });

  it("sessions: an expired session frees its place", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const handle = handler({ maxSessions: 4, sessionIdleMs: 60_000 });
    await session(handle, "bob");
    expect((await initialize(handle, "bob")).status).toBe(503);
    vi.setSystemTime(Date.now() + 61_000);
    await session(handle, "bob");
  });

  it("an explicit maxSessionsPerCaller; the global limit still holds for all", async () => {
    const handle = handler({ maxSessions: 3, maxSessionsPerCaller: 3 });
    for (let index = 0; index < 3; index++) await session(handle, "bob");
    expect(await refusal(await initialize(handle, "alice"))).toBe("Too many open sessions; try again later");
  });

  it("GET streams: bob's beyond his share are 503, alice's open; closing one frees it", async () => {
    const handle = handler({ maxStreams: 8 });
    const bob = [await session(handle, "bob"), await session(handle, "bob")];
    const alice = await session(handle, "alice");
    const [first, second] = [await getStream(handle, "bob", bob[0] as string), await listen(handle, "bob")];
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(await refusal(await getStream(handle, "bob", bob[1] as string))).toMatch(
      /Too many open streams for one caller \(at most 2\)/,
    );
    const hers = await getStream(handle, "alice", alice);
    expect(hers.status).toBe(200);
    await first.body?.cancel();
    const again = await getStream(handle, "bob", bob[1] as string);
    expect(again.status).toBe(200);
    for (const response of [second, hers, again]) await response.body?.cancel();
  });

  it("2026-07-28 listen streams: the same share; one ending frees it", async () => {
    const handle = handler({ maxStreams: 100, maxStreamsPerCaller: 2 });
    const bobs = [await listen(handle, "bob"), await listen(handle, "bob")];
    expect(bobs.map((response) => response.status)).toEqual([200, 200]);
    const refused = await listen(handle, "bob");
    expect(await refusal(refused)).toMatch(/at most 2/);
    const alices = [await listen(handle, "alice"), await listen(handle, "alice")];
    expect(alices.map((response) => response.status)).toEqual([200, 200]);
    await bobs[0]?.body?.cancel();
    const again = await listen(handle, "bob");
    expect(again.status).toBe(200);
    for (const response of [bobs[1], again, ...alices]) await response?.body?.cancel();
  });
});

describe("per-caller limits, by address", () => {
  const servers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const close of servers.splice(0)) await close();
  });

  // Over node:http, from a given loopback source address (Linux routes all of 127.0.0.0/8 to lo).
  async function start(options: HttpOptions): Promise<(from: string) => Promise<number>> {
    const handle = createHttpHandler(createServer({ name: "limits", version: "1" }), options);
    const server = createNodeServer(nodeListener(handle));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    servers.push(async () => {
      handle.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    });
    const port = (server.address() as AddressInfo).port;
    return async (from) => {
      const req = request({ host: "127.0.0.1", port, path: "/mcp", method: "POST", headers: H, localAddress: from });
      req.end(INIT);
      const [response] = (await once(req, "response")) as [IncomingMessage];
      response.resume();
      return response.statusCode ?? 0;
    };
  }

  it("an unauthenticated caller is keyed by its address: bob's 503 does not stop alice", async () => {
    const initializeFrom = await start({ maxSessions: 8 });
    expect([await initializeFrom("127.0.0.2"), await initializeFrom("127.0.0.2")]).toEqual([200, 200]);
    expect(await initializeFrom("127.0.0.2")).toBe(503);
    expect(await initializeFrom("127.0.0.3")).toBe(200);
  });

  it("the web-standard handler reads the address through the remoteAddress option", async () => {
    const handle = createHttpHandler(createServer({ name: "limits", version: "1" }), {
      maxSessions: 4,
      remoteAddress: (request) => request.headers.get("x-client") ?? undefined,
    });
    const from = (who: string) =>
      handle(new Request(URL_, { method: "POST", headers: { ...H, "x-client": who }, body: INIT }));
    expect((await from("bob")).status).toBe(200);
    expect((await from("bob")).status).toBe(503);
    expect((await from("alice")).status).toBe(200);
  });
});
