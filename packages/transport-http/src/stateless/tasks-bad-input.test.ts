import { createServer, LATEST_STATELESS_VERSION } from "@toolsmith/core";
import type { Engine } from "@toolsmith/core/engine";
import { MetaKey } from "@toolsmith/core/transport";
import { createRedisEngine } from "@toolsmith/redis";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { until } from "../../../../scripts/wait.js";
import { createHttpHandler, type HttpHandler } from "../doors/http-handler.js";
import { headers2026, post } from "../exchange/requests.test-util.js";
import { sharedRedis } from "../sessions/shared-redis.test-util.js";

// Hostile task requests over HTTP, on the memory engine and on Redis: each gets one clear JSON-RPC answer, the task
// it aimed at goes on, and so does the server.

const TASKS = "io.modelcontextprotocol/tasks";
const META = {
  [MetaKey.protocolVersion]: LATEST_STATELESS_VERSION,
  [MetaKey.clientCapabilities]: { elicitation: {}, extensions: { [TASKS]: {} } },
};
// Nested far deeper than any walk of the server's may go (JSON.parse takes it).
const DEEP = `${"[".repeat(200_000)}${"]".repeat(200_000)}`;

const { redis, engines, handlers } = sharedRedis();

function serve(engine?: Engine): HttpHandler {
  if (engine) engines.push(engine);
  const server = createServer({ name: "bad-input", version: "1", ...(engine ? { engine } : {}) });
  server.tool({
    name: "confirm",
    description: "Asks once",
    task: "optional",
    handler: async (_args, ctx) => {
      const answer = await ctx.elicit({ message: "Sure?", schema: { ok: z.boolean() } });
      return answer.action === "accept" ? `ok ${answer.content.ok}` : answer.action;
    },
  });
  const handle = createHttpHandler(server);
  handlers.push(handle);
  return handle;
}

interface Reply {
  result: { taskId: string; status: string; result: { content: { text: string }[] } };
  error?: { code: number; message: string };
}

let ids = 0;
/** A raw 2026 request: `params` is JSON text, spliced as it is. */
async function raw(handle: HttpHandler, method: string, name: string, params: string) {
  const meta = JSON.stringify(META);
  const body = `{"jsonrpc":"2.0","id":${++ids},"method":"${method}","params":{"_meta":${meta},${params}}}`;
  const response = await handle(post(body, headers2026(method, name)));
  return { status: response.status, reply: JSON.parse(await response.text()) as Reply };
}

/** Two processes of one server on Redis (a task made on one is served by the other). */
function redisPair(): [HttpHandler, HttpHandler] {
  const namespace = `bad-${crypto.randomUUID()}`;
  return [
    serve(createRedisEngine({ url: redis.url, namespace })),
    serve(createRedisEngine({ url: redis.url, namespace })),
  ];
}

for (const [engine, make, pair] of [
  [
    "memory",
    () => serve(),
    (): [HttpHandler, HttpHandler] => {
      const handle = serve();
      return [handle, handle];
    },
  ],
  ["Redis", () => serve(createRedisEngine({ url: redis.url, namespace: `bad-${crypto.randomUUID()}` })), redisPair],
] as const) {
  describe(`hostile task requests (${engine})`, () => {
    it("inputResponses nested too deep, under an asked key or another, are refused with -32602; the task still waits", async () => {
      const handle = make();
      const created = await raw(handle, "tools/call", "confirm", '"name":"confirm"');
      const { taskId } = created.reply.result;
      const id = JSON.stringify(taskId);
      await until(async () => {
        const { reply } = await raw(handle, "tasks/get", taskId, `"taskId":${id}`);
        return reply.result.status === "input_required";
      }, "the question");
      for (const key of ["elicit-1", "other"]) {
        const { status, reply } = await raw(
          handle,
          "tasks/update",
          taskId,
          `"taskId":${id},"inputResponses":{"${key}":${DEEP}}`,
        );
        expect([status, reply.error?.code]).toEqual([400, -32602]);
        expect(reply.error?.message).toMatch(/deeper/);
      }
      const { reply } = await raw(handle, "tasks/get", taskId, `"taskId":${id}`);
      expect(reply.result.status).toBe("input_required");
      await raw(
        handle,
        "tasks/update",
        taskId,
        `"taskId":${id},"inputResponses":{"elicit-1":{"action":"accept","content":{"ok":true}}}`,
      );
      const done = await until(async () => {
        const { reply } = await raw(handle, "tasks/get", taskId, `"taskId":${id}`);
        return reply.result.status === "completed" ? reply.result : undefined;
      }, "the outcome");
      expect(done.result.content[0]?.text).toBe("ok true");
    });

    it("an answer that is not an object is refused with -32602 on another process; nothing is taken", async () => {
      const [a, b] = pair();
      const created = await raw(a, "tools/call", "confirm", '"name":"confirm"');
      const { taskId } = created.reply.result;
      const id = JSON.stringify(taskId);
      const asking = await until(async () => {
        const { reply } = await raw(b, "tasks/get", taskId, `"taskId":${id}`);
        return reply.result.status === "input_required" ? reply.result : undefined;
      }, "the question");
      for (const answer of ['"yes"', "1", "null", "[]"]) {
        const { status, reply } = await raw(
          b,
          "tasks/update",
          taskId,
          `"taskId":${id},"inputResponses":{"elicit-1":${answer}}`,
        );
        expect([status, reply.error?.code]).toEqual([400, -32602]);
        expect(reply.error?.message).toMatch(/inputResponses\["elicit-1"\] must be an object/);
        const { reply: after } = await raw(a, "tasks/get", taskId, `"taskId":${id}`);
        expect(after.result).toEqual(asking);
      }
      await raw(
        b,
        "tasks/update",
        taskId,
        `"taskId":${id},"inputResponses":{"elicit-1":{"action":"accept","content":{"ok":false}}}`,
      );
      const done = await until(async () => {
        const { reply } = await raw(b, "tasks/get", taskId, `"taskId":${id}`);
        return reply.result.status === "completed" ? reply.result : undefined;
      }, "the outcome");
      expect(done.result.content[0]?.text).toBe("ok false");
    });

    it("a taskId that is huge or __proto__ is unknown (-32602), as any other", async () => {
      const handle = make();
      const none = crypto.randomUUID();
      const unknown = await raw(handle, "tasks/get", none, `"taskId":"${none}"`);
      for (const taskId of ["__proto__", "constructor", "x".repeat(100_000)]) {
        const { status, reply } = await raw(handle, "tasks/get", taskId, `"taskId":"${taskId}"`);
        expect(status).toBe(unknown.status);
        expect(reply.error).toEqual(unknown.reply.error);
      }
    });
  });
}
