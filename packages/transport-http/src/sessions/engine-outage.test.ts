import { createServer } from "@toolsmith/core";
import { createRedisEngine } from "@toolsmith/redis";
import { expect, it } from "vitest";
import { z } from "zod";
import { until, within } from "../../../../scripts/wait.js";
import { createHttpHandler, type HttpHandler } from "../doors/http-handler.js";
import { get, H, initialize, post } from "../exchange/requests.test-util.js";
import { sharedRedis } from "./shared-redis.test-util.js";

// Redis killed while a client holds a GET stream on A and a call runs on B, then started again: requests meanwhile
// are 503 + Retry-After (none hangs), and afterwards the same session works on both with nothing done by its client.
const LEASE_MS = 300;
// A 503 comes within the engine's command timeout (2 s); this is only how long a hang takes to be named.
const REFUSED_WITHIN_MS = 15_000;

const { redis, engines, handlers } = sharedRedis();

function process_(namespace: string): HttpHandler {
  const engine = createRedisEngine({ url: redis.url, namespace, leaseMs: LEASE_MS });
  engines.push(engine);
  const server = createServer({ name: "outage", version: "1", engine });
  server.tool({
    name: "add",
    description: "Add",
    input: { a: z.number(), b: z.number() },
    handler: ({ a, b }) => a + b,
  });
  server.tool({
    name: "ask",
    description: "Asks the user",
    handler: async (_args, ctx) => (await ctx.elicit({ message: "ok?", schema: { ok: z.boolean() } })).action,
  });
  server.resource({ uri: "note://one", handler: () => "one" });
  const handle = createHttpHandler(server);
  handlers.push(handle);
  return Object.assign(handle, { server });
}

/** An SSE body read as it comes. */
function reading(response: Response) {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = "";
  let ended = false;
  let reading_: Promise<void> | undefined;
  const more = () =>
    (reading_ ??= reader.read().then(({ value, done }) => {
      reading_ = undefined;
      if (done) ended = true;
      else text += decoder.decode(value, { stream: true });
    }));
  return {
    async until(holds: (text: string) => boolean): Promise<string> {
      while (!ended && !holds(text)) await more();
      return text;
    },
    /** True once the text holds, reading what came meanwhile (never waiting long for more). */
    async has(part: string): Promise<boolean> {
      await Promise.race([more(), new Promise((resolve) => setTimeout(resolve, 50))]);
      return text.includes(part);
    },
    get text() {
      return text;
    },
    cancel: () => reader.cancel(),
  };
}
const has = (part: string) => (text: string) => text.includes(part);

const call = (id: number, name: string, args: Record<string, unknown> = {}) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: args },
});

it("Redis killed mid-session, then restarted: 503 + Retry-After meanwhile, then the session goes on everywhere", async () => {
  const namespace = `outage-${crypto.randomUUID()}`;
  const a = process_(namespace) as HttpHandler & { server: ReturnType<typeof createServer> };
  const b = process_(namespace) as HttpHandler & { server: ReturnType<typeof createServer> };
  const opened = await a(post(initialize(1, "2025-11-25", { elicitation: {} }), H));
  const session = opened.headers.get("mcp-session-id") as string;
  const headers = { ...H, "mcp-session-id": session };
  await a(post({ jsonrpc: "2.0", method: "notifications/initialized" }, headers));
  await a(post({ jsonrpc: "2.0", id: 2, method: "resources/subscribe", params: { uri: "note://one" } }, headers));
  const stream = reading(await a(get({ accept: "text/event-stream", "mcp-session-id": session })));
  const asked = reading(await b(post(call(3, "ask"), headers)));
  const question = await asked.until(has("elicitation/create"));
  const primed = /^id: (\S+)/.exec(question)?.[1] as string;
  const questionId = /"id":"([^"]+)","method":"elicitation\/create"/.exec(question)?.[1] as string;

  await redis.kill();
  const down = Date.now();
  const refusals = await within(
    Promise.all([
      a(post(call(4, "add", { a: 1, b: 2 }), headers)),
      b(post(call(5, "add", { a: 1, b: 2 }), headers)),
      b(get({ accept: "text/event-stream", "mcp-session-id": session, "last-event-id": primed })),
      b(new Request("http://127.0.0.1:3000/mcp", { method: "DELETE", headers: { "mcp-session-id": session } })),
      a(post(initialize(6), H)),
    ]),
    "the requests made while Redis is down to be refused",
    REFUSED_WITHIN_MS,
  );
  expect(refusals.map((response) => response.status)).toEqual([503, 503, 503, 503, 503]);
  for (const response of refusals) expect(Number(response.headers.get("retry-after"))).toBeGreaterThan(0);

  // Down for longer than a lease (a lease is time: only the clock says so): every process's lease lapsed meanwhile.
  await until(() => Date.now() - down > 3 * LEASE_MS, "the leases to lapse while Redis is down");
  await redis.restart();
  // Each process reconnects by itself (within a second or so): the same session, no new initialize.
  for (const [handle, id] of [
    [a, 7],
    [b, 8],
  ] as const) {
    const added = await until(async () => {
      const response = await handle(post(call(id, "add", { a: 2, b: 3 }), headers));
      return response.status === 200 ? ((await response.json()) as unknown) : undefined;
    }, "a call in the session to be served again after Redis restarted");
    expect(added).toMatchObject({ id, result: { content: [{ text: "5" }] } });
  }
  // A's GET stream, open across the outage, hears what B says after it (A followed the session again).
  await until(async () => {
    b.server.resourceUpdated("note://one");
    return stream.has("notifications/resources/updated");
  }, "a resource update from B on A's GET stream after the restart");
  // The question asked before the outage is answered through A; the call on B completes, answered once.
  const answered = await a(
    post({ jsonrpc: "2.0", id: questionId, result: { action: "accept", content: { ok: true } } }, headers),
  );
  expect(answered.status).toBe(202);
  const text = await within(asked.until(has('"id":3,')), "the call's response on B's stream");
  expect(text).toContain('"text":"accept"');
  await stream.cancel();
  // What was kept of the call's stream holds one response, the call's own (no orphan error beside it).
  const replayed = reading(
    await a(get({ accept: "text/event-stream", "mcp-session-id": session, "last-event-id": primed })),
  );
  const kept = await within(replayed.until(has('"id":3,')), "the call's stream replayed");
  expect(kept.match(/"id":3,/g)).toHaveLength(1);
  expect(kept).not.toMatch(/stopped before it answered/);
}, 120_000);
