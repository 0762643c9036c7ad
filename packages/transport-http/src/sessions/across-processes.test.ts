import { createServer, ErrorCode } from "@toolsmith/core";
import type { Engine } from "@toolsmith/core/engine";
import { createRedisEngine } from "@toolsmith/redis";
import { type RedisServer, startRedis } from "@toolsmith/redis/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createHttpHandler, type HttpHandler } from "../doors/http-handler.js";
import { call2026, get, H, initialize, post, URL_ } from "../exchange/requests.test-util.js";

// Three processes of one server, as three handlers on three Redis engines sharing one namespace: any of them serves
// any request of a handshake-era session (no sticky sessions).

let redis: RedisServer;
const engines: Engine[] = [];
const handlers: HttpHandler[] = [];
let namespaces = 0;

beforeAll(async () => {
  redis = await startRedis();
}, 60_000);

afterAll(async () => {
  for (const handle of handlers) handle.close();
  await Promise.all(engines.map((engine) => engine.close()));
  await redis?.stop();
});

interface Process {
  readonly handle: HttpHandler;
  readonly server: ReturnType<typeof createServer>;
  readonly engine: Engine;
  readonly aborted: Promise<void>;
}

// One process: the same definitions, its own engine on the shared Redis.
function process_(namespace: string, url = redis.url, leaseMs?: number): Process {
  const engine = createRedisEngine({ url, namespace, ...(leaseMs ? { leaseMs } : {}) });
  engines.push(engine);
  const server = createServer({ name: "across", version: "1", engine });
  let abort: () => void = () => {};
  const aborted = new Promise<void>((resolve) => {
    abort = resolve;
  });
  server.tool({
    name: "add",
    description: "Add",
    input: { a: z.number(), b: z.number() },
    handler: ({ a, b }) => a + b,
  });
  server.tool({ name: "other", description: "Another", handler: () => "other" });
  server.tool({
    name: "ask",
    description: "Asks the user",
    handler: async (_args, ctx) => (await ctx.elicit({ message: "ok?", schema: { ok: z.boolean() } })).action,
  });
  server.tool({
    name: "slow",
    description: "Runs until cancelled",
    handler: (_args, ctx) =>
      new Promise<string>((resolve) => {
        ctx.signal.addEventListener("abort", () => {
          abort();
          resolve("stopped");
        });
      }),
  });
  server.resource({ uri: "note://one", handler: () => "one" });
  const handle = createHttpHandler(server);
  handlers.push(handle);
  return { handle, server, engine, aborted };
}

function cluster(count = 3, leaseMs?: number): Process[] {
  const namespace = `across-${++namespaces}-${Date.now()}`;
  return Array.from({ length: count }, () => process_(namespace, redis.url, leaseMs));
}

/** An SSE body read as it comes: `until(holds)` reads on until the text so far holds or the stream ends. */
function reading(response: Response) {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = "";
  let ended = false;
  return {
    async until(holds: (text: string) => boolean): Promise<string> {
      while (!ended && !holds(text)) {
        const { value, done } = await reader.read();
        if (done) ended = true;
        else text += decoder.decode(value, { stream: true });
      }
      return text;
    },
    get ended() {
      return ended;
    },
    cancel: () => reader.cancel(),
  };
}
const has = (part: string) => (text: string) => text.includes(part);

async function open(handle: HttpHandler): Promise<string> {
  const response = await handle(post(initialize(1, "2025-11-25", { elicitation: {} }), H));
  expect(response.status).toBe(200);
  const session = response.headers.get("mcp-session-id") as string;
  await handle(post({ jsonrpc: "2.0", method: "notifications/initialized" }, { ...H, "mcp-session-id": session }));
  return session;
}

const call = (id: number, name: string, args: Record<string, unknown> = {}) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: args },
});

const questionId = (text: string) =>
  (JSON.parse(text.slice(text.indexOf('data: {"jsonrpc":"2.0","id":') + 6).split("\n")[0] as string) as { id: string })
    .id;

describe("a handshake-era session served by three processes", () => {
  it("initialize on A, a call on B, the GET stream on C", async () => {
    const [a, b, c] = cluster();
    const session = await open(a!.handle);
    const headers = { ...H, "mcp-session-id": session };
    const called = await b!.handle(post(call(2, "add", { a: 2, b: 3 }), headers));
    expect(called.status).toBe(200);
    expect(await called.json()).toMatchObject({ id: 2, result: { content: [{ type: "text", text: "5" }] } });
    const stream = await c!.handle(get({ accept: "text/event-stream", "mcp-session-id": session }));
    expect(stream.status).toBe(200);
    await stream.body?.cancel();
    // Another caller's use of the id is as for an unknown one, on every process.
    const unknown = await c!.handle(post(call(3, "add", { a: 1, b: 1 }), { ...H, "mcp-session-id": "nope" }));
    expect([unknown.status, ((await unknown.json()) as { error: { code: number } }).error.code]).toEqual([
      404,
      ErrorCode.SessionNotFound,
    ]);
  });

  it("a session ended on A is not found on B's next request, though B served it a moment before", async () => {
    const [a, b] = cluster(2);
    const session = await open(a!.handle);
    const headers = { ...H, "mcp-session-id": session };
    expect((await b!.handle(post(call(2, "add", { a: 2, b: 3 }), headers))).status).toBe(200);
    const ended = await a!.handle(new Request(URL_, { method: "DELETE", headers: { "mcp-session-id": session } }));
    expect(ended.status).toBe(204);
    const after = await b!.handle(post(call(3, "add", { a: 1, b: 1 }), headers));
    expect([after.status, ((await after.json()) as { error: { code: number } }).error.code]).toEqual([
      404,
      ErrorCode.SessionNotFound,
    ]);
  });

  it("a question asked on A is answered by a POST to B; the call completes on A's stream", async () => {
    const [a, b] = cluster(2);
    const session = await open(a!.handle);
    const headers = { ...H, "mcp-session-id": session };
    const asked = await a!.handle(post(call(5, "ask"), headers));
    expect(asked.headers.get("content-type")).toBe("text/event-stream");
    const stream = reading(asked);
    const question = await stream.until(has("elicitation/create"));
    const answered = await b!.handle(
      post({ jsonrpc: "2.0", id: questionId(question), result: { action: "accept", content: { ok: true } } }, headers),
    );
    expect(answered.status).toBe(202);
    expect(await stream.until(has('"id":5,'))).toContain('"text":"accept"');
  });

  it("a cancellation POSTed to B stops the call running on A", async () => {
    const [a, b] = cluster(2);
    const session = await open(a!.handle);
    const headers = { ...H, "mcp-session-id": session };
    const running = a!.handle(post(call(7, "slow"), headers));
    const cancelled = await b!.handle(
      post({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 7, reason: "enough" } }, headers),
    );
    expect(cancelled.status).toBe(202);
    await a!.aborted;
    expect((await running).status).toBe(202);
  });

  it("a list change made on A reaches the GET stream held on C exactly once", async () => {
    const [a, b, c] = cluster();
    const session = await open(b!.handle);
    const headers = { ...H, "mcp-session-id": session };
    await b!.handle(
      post({ jsonrpc: "2.0", id: 2, method: "resources/subscribe", params: { uri: "note://one" } }, headers),
    );
    const stream = await c!.handle(get({ accept: "text/event-stream", "mcp-session-id": session }));
    expect(stream.status).toBe(200);
    a!.server.registered("tool", "other")?.disable();
    const events = reading(stream);
    await events.until(has("list_changed"));
    // Then something else, after which a second copy of the change would have come.
    b!.server.resourceUpdated("note://one");
    const text = await events.until(has("resources/updated"));
    await events.cancel();
    expect(text.match(/notifications\/tools\/list_changed/g)).toHaveLength(1);
    expect(text.match(/notifications\/resources\/updated/g)).toHaveLength(1);
    // Every process applied the disable: tools/list agrees wherever it lands.
    const listed = await c!.handle(post({ jsonrpc: "2.0", id: 3, method: "tools/list" }, headers));
    const names = ((await listed.json()) as { result: { tools: { name: string }[] } }).result.tools.map((t) => t.name);
    expect(names).not.toContain("other");
  });

  it("a stream A wrote is resumed on B with its Last-Event-ID: replayed, then live, closed after its response", async () => {
    const [a, b, c] = cluster();
    const session = await open(a!.handle);
    const headers = { ...H, "mcp-session-id": session };
    const asked = await a!.handle(post(call(6, "ask"), headers));
    const lost = reading(asked);
    const primed = /^id: (\S+)/.exec(await lost.until(has("\n\n")))?.[1] as string;
    await lost.cancel(); // the client lost the stream
    const resumed = await b!.handle(
      get({ accept: "text/event-stream", "mcp-session-id": session, "last-event-id": primed }),
    );
    expect(resumed.status).toBe(200);
    const again = reading(resumed);
    const question = await again.until(has("elicitation/create"));
    await c!.handle(
      post({ jsonrpc: "2.0", id: questionId(question), result: { action: "accept", content: { ok: true } } }, headers),
    );
    // The stream ends after the response: reading to its end terminates.
    const text = await again.until(() => false);
    expect(again.ended).toBe(true);
    expect(text).toContain('"id":6,');
    expect(text).toContain('"text":"accept"');
  });

  it("a GET stream resumed on B takes it from A: A's copy ends, B's goes on with what is said after", async () => {
    const [a, b, c] = cluster();
    const session = await open(a!.handle);
    const headers = { ...H, "mcp-session-id": session };
    const held = reading(await a!.handle(get({ accept: "text/event-stream", "mcp-session-id": session })));
    const primed = /^id: (\S+)/.exec(await held.until(has("\n\n")))?.[1] as string;
    const resumed = await b!.handle(
      get({ accept: "text/event-stream", "mcp-session-id": session, "last-event-id": primed }),
    );
    expect(resumed.status).toBe(200);
    await held.until(() => false);
    expect(held.ended).toBe(true);
    await c!.handle(
      post({ jsonrpc: "2.0", id: 2, method: "resources/subscribe", params: { uri: "note://one" } }, headers),
    );
    c!.server.resourceUpdated("note://one");
    const events = reading(resumed);
    expect(await events.until(has("resources/updated"))).toContain('"uri":"note://one"');
    await events.cancel();
  });

  it("a call whose process's engine stopped is answered by another process on the resumed stream", async () => {
    const [a, b] = cluster(2, 600);
    const session = await open(a!.handle);
    const headers = { ...H, "mcp-session-id": session };
    const asked = await a!.handle(post(call(8, "ask"), headers));
    const lost = reading(asked);
    const primed = /^id: (\S+)/.exec(await lost.until(has("\n\n")))?.[1] as string;
    await lost.cancel();
    await a!.engine.close(); // A stops: its lease lapses
    const resumed = await b!.handle(
      get({ accept: "text/event-stream", "mcp-session-id": session, "last-event-id": primed }),
    );
    expect(resumed.status).toBe(200);
    const text = await reading(resumed).until(has('"id":8,'));
    const line = text.split("\n").find((entry) => entry.includes('"id":8,')) as string;
    expect(JSON.parse(line.slice(6))).toMatchObject({
      id: 8,
      error: { code: ErrorCode.InternalError, message: expect.stringMatching(/stopped before it answered/) },
    });
  }, 20_000);
});

describe("the engine out of reach", () => {
  it("a session's request is 503 with Retry-After within seconds; a 2026-07-28 call still works", async () => {
    const own = await startRedis();
    try {
      const namespace = `down-${Date.now()}`;
      const a = process_(namespace, own.url);
      const session = await open(a.handle);
      await own.stop();
      const started = Date.now();
      const refused = await a.handle(post(call(9, "add", { a: 1, b: 2 }), { ...H, "mcp-session-id": session }));
      expect(Date.now() - started).toBeLessThan(5000);
      expect(refused.status).toBe(503);
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(await refused.json()).toMatchObject({
        id: 9,
        error: { code: -32000, data: { retryAfterSeconds: expect.any(Number) } },
      });
      const opened = await a.handle(post(initialize(10), H));
      expect(opened.status).toBe(503);
      const stateless = await a.handle(call2026(11, "add", { arguments: { a: 4, b: 5 } }));
      expect(stateless.status).toBe(200);
      expect(await stateless.json()).toMatchObject({ id: 11, result: { content: [{ text: "9" }] } });
    } finally {
      await own.stop();
    }
  }, 30_000);
});
