import { createServer, ErrorCode } from "@toolsmith/core";
import type { Engine } from "@toolsmith/core/engine";
import { createRedisEngine } from "@toolsmith/redis";
import { type RedisServer, startRedis } from "@toolsmith/redis/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { z } from "zod";
import { within } from "../../../../scripts/wait.js";
import { createHttpHandler, type HttpHandler } from "../doors/http-handler.js";
import { get, H, initialize, post, URL_ } from "../exchange/requests.test-util.js";

// Races between processes of one server on one Redis, as a client (or two) can make them.

let redis: RedisServer;
const engines: Engine[] = [];
const handlers: HttpHandler[] = [];
let asked = 0;

beforeAll(async () => {
  redis = await startRedis();
}, 60_000);
afterAll(async () => {
  for (const handle of handlers) handle.close();
  await Promise.all(engines.map((engine) => engine.close()));
  await redis?.stop();
});

type Process = HttpHandler & { server: ReturnType<typeof createServer> };

// Up to three processes (destructure as many as asked for).
function cluster(count: 2 | 3): [Process, Process, Process] {
  const namespace = `races-${crypto.randomUUID()}`;
  return Array.from({ length: count }, () => {
    const engine = createRedisEngine({ url: redis.url, namespace });
    engines.push(engine);
    const server = createServer({ name: "races", version: "1", engine });
    server.tool({ name: "ping_tool", description: "Pong", handler: () => "pong" });
    server.tool({
      name: "ask",
      description: "Asks the user",
      handler: async (_args, ctx) => {
        asked++;
        return (await ctx.elicit({ message: "ok?", schema: { ok: z.boolean() } })).action;
      },
    });
    server.resource({ uri: "note://one", handler: () => "one" });
    const handle = createHttpHandler(server);
    handlers.push(handle);
    return Object.assign(handle, { server });
  }) as [Process, Process, Process];
}

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

async function open(handle: HttpHandler): Promise<Record<string, string>> {
  const opened = await handle(post(initialize(1, "2025-11-25", { elicitation: {} }), H));
  const headers = { ...H, "mcp-session-id": opened.headers.get("mcp-session-id") as string };
  await handle(post({ jsonrpc: "2.0", method: "notifications/initialized" }, headers));
  return headers;
}

const call = (id: number, name: string) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: {} },
});
const questionOf = (text: string) => /"id":"([^"]+)","method":"elicitation\/create"/.exec(text)?.[1] as string;

it("DELETE on A while a call runs on B: B's stream ends, B lets the session go, every process answers 404", async () => {
  const [a, b, c] = cluster(3);
  const headers = await open(a);
  const running = reading(await b(post(call(2, "ask"), headers)));
  await running.until(has("elicitation/create"));
  const removed = await a(
    new Request(URL_, { method: "DELETE", headers: { "mcp-session-id": headers["mcp-session-id"] as string } }),
  );
  expect(removed.status).toBe(204);
  await within(
    running.until(() => false),
    "the running call's stream on B to end",
  );
  expect(running.ended).toBe(true);
  expect(b.sessions).toBe(0);
  for (const handle of [a, b, c]) {
    const response = await handle(post(call(3, "ping_tool"), headers));
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ id: 3, error: { code: ErrorCode.SessionNotFound } });
  }
});

it("two GET streams of one session opened at once on two processes: exactly one stays and hears what follows", async () => {
  const [a, b, c] = cluster(3);
  // A race: each round is one more chance for both to close each other (or for both to stay).
  for (let round = 0; round < 10; round++) {
    const headers = await open(a);
    await c(post({ jsonrpc: "2.0", id: 2, method: "resources/subscribe", params: { uri: "note://one" } }, headers));
    const sse = { accept: "text/event-stream", "mcp-session-id": headers["mcp-session-id"] as string };
    const [first, second] = await Promise.all([a(get(sse)), b(get(sse))]);
    expect([first.status, second.status]).toEqual([200, 200]);
    const streams = [reading(first), reading(second)];
    c.server.resourceUpdated("note://one");
    // Each either hears the update or ends (taken over by the other): exactly one of them hears it.
    const texts = await within(
      Promise.all(streams.map((stream) => stream.until(has("resources/updated")))),
      "each GET stream to hear the update or end",
    );
    expect(texts.filter(has("resources/updated"))).toHaveLength(1);
    expect(streams.filter((stream) => stream.ended)).toHaveLength(1);
    for (const stream of streams) if (!stream.ended) await stream.cancel();
  }
});

it("a Last-Event-ID of session S sent on session T is 400 and replays nothing", async () => {
  const [a, b] = cluster(2);
  const s = await open(a);
  const t = await open(a);
  const asked_ = reading(await a(post(call(2, "ask"), s)));
  const primed = /^id: (\S+)/.exec(await asked_.until(has("elicitation/create")))?.[1] as string;
  const resumed = await b(
    get({ accept: "text/event-stream", "mcp-session-id": t["mcp-session-id"] as string, "last-event-id": primed }),
  );
  expect(resumed.status).toBe(400);
  expect(await resumed.text()).not.toContain("elicitation");
  await asked_.cancel();
});

it("an answer POSTed twice, to two processes, settles the question once; a cancellation of no request is accepted", async () => {
  const [a, b, c] = cluster(3);
  const headers = await open(a);
  const before = asked;
  const running = reading(await a(post(call(2, "ask"), headers)));
  const question = questionOf(await running.until(has("elicitation/create")));
  const answer = { jsonrpc: "2.0", id: question, result: { action: "accept", content: { ok: true } } };
  const [one, two] = await Promise.all([b(post(answer, headers)), c(post(answer, headers))]);
  expect([one.status, two.status]).toEqual([202, 202]);
  const text = await within(
    running.until(() => false),
    "the call's stream to end after its response",
  );
  expect(text.match(/"id":2,/g)).toHaveLength(1);
  expect(asked - before).toBe(1);
  const cancelled = await b(
    post({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 999, reason: "no such" } }, headers),
  );
  expect(cancelled.status).toBe(202);
  const alive = await c(post(call(3, "ping_tool"), headers));
  expect(await alive.json()).toMatchObject({ id: 3, result: { content: [{ text: "pong" }] } });
});
