import { createServer } from "@toolsmith/core";
import { RATE_LIMITED, rateLimit } from "@toolsmith/core/middleware";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createHttpHandler } from "../doors/http-handler.js";
import { call2026, H, initialize, post, replyOf } from "../exchange/requests.test-util.js";

// The rate limiter over HTTP: every stateless request gets a fresh connection, yet a requestState is redeemed for
// free once only, since the limiter's memory belongs to the middleware instance (one per process).

const yes = { confirm: { action: "accept", content: { ok: true } } };
const auth = { authorization: "Bearer ana" };

function limited() {
  const server = createServer({ name: "limited", version: "1" });
  const runs = { confirm: 0, add: 0 };
  server.tool({
    name: "confirm",
    description: "Asks first",
    handler: async (_args, ctx) => {
      runs.confirm++;
      return (await ctx.elicit({ key: "confirm", message: "ok?", schema: { ok: z.boolean() } })).action;
    },
  });
  server.tool({
    name: "add",
    description: "Add",
    input: { a: z.number(), b: z.number() },
    handler: ({ a, b }) => {
      runs.add++;
      return a + b;
    },
  });
  server.use(rateLimit({ capacity: 3, perSecond: 0.0001, now: () => 0 }));
  const handle = createHttpHandler(server, {
    authenticate: (request) =>
      request.headers.get("authorization") === "Bearer ana" ? { subject: "ana", scopes: [] } : undefined,
  });
  return { handle, runs };
}

const errorCode = (reply: Record<string, unknown>) => (reply.error as { code?: number } | undefined)?.code;

describe("rateLimit over HTTP", () => {
  it("2026-07-28: one genuine requestState replayed in 12 requests runs the handler as often as the limit allows", async () => {
    const { handle, runs } = limited();
    const first = await replyOf(await handle(call2026(1, "confirm", {}, auth)));
    const requestState = (first.result as { requestState: string }).requestState;
    const replies = await Promise.all(
      Array.from({ length: 12 }, async (_, index) =>
        replyOf(await handle(call2026(index + 2, "confirm", { inputResponses: yes, requestState }, auth))),
      ),
    );
    expect(replies.filter((reply) => "result" in reply)).toHaveLength(3);
    expect(replies.filter((reply) => errorCode(reply) === RATE_LIMITED)).toHaveLength(9);
    expect(runs.confirm).toBe(4);
  });

  it("2026-07-28: the genuine flow, elicit then retry with the answer, costs one token", async () => {
    const { handle, runs } = limited();
    for (let flow = 0; flow < 3; flow++) {
      const first = await replyOf(await handle(call2026(1, "confirm", {}, auth)));
      const requestState = (first.result as { requestState: string }).requestState;
      const done = await replyOf(await handle(call2026(2, "confirm", { inputResponses: yes, requestState }, auth)));
      expect(done).toMatchObject({ result: { content: [{ text: "accept" }] } });
    }
    expect(runs.confirm).toBe(6);
    expect(errorCode(await replyOf(await handle(call2026(3, "confirm", {}, auth))))).toBe(RATE_LIMITED);
  });

  it("handshake era: a junk requestState is charged", async () => {
    const { handle, runs } = limited();
    const opened = await handle(post(initialize(), { ...H, ...auth }));
    const session = { ...H, ...auth, "mcp-session-id": opened.headers.get("mcp-session-id") as string };
    await handle(post({ jsonrpc: "2.0", method: "notifications/initialized" }, session));
    const replies = await Promise.all(
      Array.from({ length: 6 }, async (_, index) =>
        replyOf(
          await handle(
            post(
              {
                jsonrpc: "2.0",
                id: index + 2,
                method: "tools/call",
                params: { name: "add", arguments: { a: 1, b: 1 }, requestState: "junk" },
              },
              session,
            ),
          ),
        ),
      ),
    );
    expect(replies.filter((reply) => errorCode(reply) === RATE_LIMITED)).toHaveLength(3);
    expect(runs.add).toBe(3);
  });

  it("unauthenticated callers are counted by their network address (the one caller key), not in one shared bucket", async () => {
    const server = createServer({ name: "limited", version: "1" });
    let runs = 0;
    server.tool({ name: "add", description: "Add", handler: () => ++runs });
    server.use(rateLimit({ capacity: 2, perSecond: 0.0001, now: () => 0 }));
    const handle = createHttpHandler(server, {
      remoteAddress: (request) => request.headers.get("x-peer") ?? undefined,
    });
    const from = (peer: string, id: number) => handle(call2026(id, "add", {}, { "x-peer": peer }));
    const codes = async (peer: string, first: number) =>
      Promise.all([0, 1, 2].map(async (index) => errorCode(await replyOf(await from(peer, first + index)))));
    expect(await codes("192.0.2.1", 1)).toEqual([undefined, undefined, RATE_LIMITED]);
    // Another client is not starved by the first one's use; the same /56 is the same caller.
    expect(await codes("2001:db8:1:100::1", 10)).toEqual([undefined, undefined, RATE_LIMITED]);
    expect(errorCode(await replyOf(await from("2001:db8:1:1ff::2", 20)))).toBe(RATE_LIMITED);
    expect(runs).toBe(4);
  });
});
