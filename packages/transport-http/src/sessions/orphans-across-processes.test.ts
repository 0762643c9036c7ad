import { createServer, ErrorCode } from "@toolsmith/core";
import type { Engine } from "@toolsmith/core/engine";
import { createRedisEngine } from "@toolsmith/redis";
import { expect, it } from "vitest";
import { z } from "zod";
import { within } from "../../../../scripts/wait.js";
import { createHttpHandler, type HttpHandler } from "../doors/http-handler.js";
import { get, H, initialize, post } from "../exchange/requests.test-util.js";
import { sharedRedis } from "./shared-redis.test-util.js";

// A process stops mid-call (its engine closes: its lease ends) with three survivors: the call's stream gets exactly
// one error response, whichever survivor the client resumes on.
const LEASE_MS = 300;

const { redis, engines, handlers } = sharedRedis();

function process_(namespace: string): { handle: HttpHandler; engine: Engine } {
  const engine = createRedisEngine({ url: redis.url, namespace, leaseMs: LEASE_MS });
  engines.push(engine);
  const server = createServer({ name: "orphans", version: "1", engine });
  server.tool({
    name: "ask",
    description: "Asks the user",
    handler: async (_args, ctx) => (await ctx.elicit({ message: "ok?", schema: { ok: z.boolean() } })).action,
  });
  const handle = createHttpHandler(server);
  handlers.push(handle);
  return { handle, engine };
}

async function textOf(response: Response): Promise<string> {
  return await within(response.text(), "the resumed stream to end after its response");
}

it("a call left by a stopped process is answered once, with three survivors, on any of them", async () => {
  const namespace = `orphans-${crypto.randomUUID()}`;
  const [a, b, c, d] = [0, 1, 2, 3].map(() => process_(namespace)) as { handle: HttpHandler; engine: Engine }[];
  const opened = await a!.handle(post(initialize(1, "2025-11-25", { elicitation: {} }), H));
  const headers = { ...H, "mcp-session-id": opened.headers.get("mcp-session-id") as string };
  await a!.handle(post({ jsonrpc: "2.0", method: "notifications/initialized" }, headers));
  const asked = await a!.handle(
    post({ jsonrpc: "2.0", id: 8, method: "tools/call", params: { name: "ask", arguments: {} } }, headers),
  );
  const reader = (asked.body as ReadableStream<Uint8Array>).getReader();
  const first = new TextDecoder().decode((await reader.read()).value);
  const primed = /^id: (\S+)/.exec(first)?.[1] as string;
  await reader.cancel();
  await a!.engine.close();
  const resume = { accept: "text/event-stream", "mcp-session-id": headers["mcp-session-id"], "last-event-id": primed };
  // The resumed stream closes after the call's response: here, the survivors' error.
  const text = await textOf(await b!.handle(get(resume)));
  const responses = text.split("\n").filter((line) => line.includes('"id":8,'));
  expect(responses).toHaveLength(1);
  expect(JSON.parse((responses[0] as string).slice(6))).toMatchObject({
    id: 8,
    error: { code: ErrorCode.InternalError },
  });
  // Whichever survivor it resumes on, what was kept is the same one response.
  for (const other of [c, d]) {
    const again = await textOf(await other!.handle(get(resume)));
    expect(again.split("\n").filter((line) => line.includes('"id":8,'))).toEqual(responses);
  }
}, 60_000);
