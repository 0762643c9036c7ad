import { createServer, LATEST_STATELESS_VERSION } from "@toolsmith/core";
import type { Engine } from "@toolsmith/core/engine";
import { MetaKey } from "@toolsmith/core/transport";
import { createRedisEngine } from "@toolsmith/redis";
import { describe, expect, it } from "vitest";
import { until } from "../../../../scripts/wait.js";
import { createHttpHandler } from "../doors/http-handler.js";
import { headers2026, post, replyOf } from "../exchange/requests.test-util.js";
import { sharedRedis } from "../sessions/shared-redis.test-util.js";

// subscriptions/listen with taskIds over HTTP: the listen's process hears a task that runs on another process.

const TASKS = "io.modelcontextprotocol/tasks";
const META = {
  [MetaKey.protocolVersion]: LATEST_STATELESS_VERSION,
  [MetaKey.clientCapabilities]: { extensions: { [TASKS]: {} } },
};

const { redis, engines, handlers } = sharedRedis();
const logged: { level: string; message: string }[] = [];

/** One process of the server: its own engine on the shared Redis; its `job` waits for `release`. */
function process_(namespace: string, engine?: Engine) {
  const server = createServer({
    name: "tasks-listen",
    version: "1",
    logger: ({ level, message }) => logged.push({ level, message }),
    ...(engine ? { engine } : {}),
  });
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  server.tool({
    name: "job",
    description: "Waits for the test, then reports",
    task: "optional",
    handler: async (_args, ctx) => {
      await gate;
      ctx.progress(1, 1, "writing the report");
      ctx.log.info("a log line the stream never carries");
      return "report ready";
    },
  });
  // Works until stopped; kept 400 ms.
  server.tool({
    name: "stuck",
    description: "Works until its TTL passes",
    task: { support: "optional", ttlMs: 400 },
    handler: (_args, ctx) =>
      new Promise((_, reject) => ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason))),
  });
  // The same, kept long enough for the test to stop Redis before its TTL passes.
  server.tool({
    name: "lingering",
    description: "Works until its TTL passes",
    task: { support: "optional", ttlMs: 1500 },
    handler: (_args, ctx) =>
      new Promise((_, reject) => ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason))),
  });
  const handle = createHttpHandler(server);
  handlers.push(handle);
  return { handle, release, namespace };
}

function redisProcess(namespace: string) {
  const engine = createRedisEngine({ url: redis.url, namespace });
  engines.push(engine);
  return process_(namespace, engine);
}

/** An SSE body read as it comes: `until(holds)` reads on until the text so far holds or the stream ends. */
function reading(response: Response) {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = "";
  return {
    async until(holds: (text: string) => boolean): Promise<string> {
      while (!holds(text)) {
        const { value, done } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
      }
      return text;
    },
    cancel: () => reader.cancel(),
  };
}

/** The JSON-RPC messages in SSE text so far. */
const messages = (text: string) =>
  text
    .split("\n")
    .filter((line) => line.startsWith("data: {"))
    .map((line) => JSON.parse(line.slice(6)) as { method?: string; params?: Record<string, unknown> });

const listen = (id: number, taskIds: string[], meta: Record<string, unknown> = META) =>
  post(
    { jsonrpc: "2.0", id, method: "subscriptions/listen", params: { notifications: { taskIds }, _meta: meta } },
    headers2026("subscriptions/listen"),
  );

describe("subscriptions/listen with taskIds over HTTP", () => {
  it("a listen on B hears the task created on A until it completes there, then nothing more", async () => {
    const namespace = `tasks-listen-${Date.now()}`;
    const a = redisProcess(namespace);
    const b = redisProcess(namespace);
    // Sent as soon as the handler is made: the task waits for the engine the transport is still starting.
    const created = await replyOf(
      await a.handle(
        post(
          { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "job", _meta: META } },
          headers2026("tools/call", "job"),
        ),
      ),
    );
    const taskId = (created.result as { taskId: string }).taskId;
    const response = await b.handle(listen(2, [taskId, "tasks-nonexistent"]));
    expect(response.status).toBe(200);
    const stream = reading(response);
    const acked = await stream.until((text) => text.includes("notifications/subscriptions/acknowledged"));
    expect(messages(acked)[0]?.params).toEqual({
      _meta: { [MetaKey.subscriptionId]: 2 },
      notifications: { taskIds: [taskId] },
    });
    a.release();
    const text = await stream.until((so) => so.includes('"status":"completed"'));
    const told = messages(text).slice(1);
    expect(told.every((message) => message.method === "notifications/tasks")).toBe(true);
    const last = told.at(-1)?.params;
    expect(last).toMatchObject({
      taskId,
      status: "completed",
      result: { content: [{ type: "text", text: "report ready" }] },
      _meta: { [MetaKey.subscriptionId]: 2 },
    });
    // What B told is what tasks/get answers, on either process.
    const got = await replyOf(
      await b.handle(
        post(
          { jsonrpc: "2.0", id: 3, method: "tasks/get", params: { taskId, _meta: META } },
          headers2026("tasks/get", taskId),
        ),
      ),
    );
    const { resultType: _type, _meta: _getMeta, ...detailed } = got.result as Record<string, unknown>;
    const { _meta: _listenMeta, ...notified } = last as Record<string, unknown>;
    expect(notified).toEqual(detailed);
    await stream.cancel();
    // The handler's log went to the server's own log, and no task or listen failed on either process.
    expect(logged.map((entry) => entry.message).join("\n")).toContain("a log line the stream never carries");
    expect(logged.filter((entry) => entry.level === "error" && /task|listen/i.test(entry.message))).toEqual([]);
  });

  it("a listen on B following a task on A that outlives its TTL is told it failed (expired), then nothing more", async () => {
    const namespace = `tasks-expiry-${Date.now()}`;
    const a = redisProcess(namespace);
    const b = redisProcess(namespace);
    const created = await replyOf(
      await a.handle(
        post(
          { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "stuck", _meta: META } },
          headers2026("tools/call", "stuck"),
        ),
      ),
    );
    const taskId = (created.result as { taskId: string }).taskId;
    const stream = reading(await b.handle(listen(2, [taskId])));
    const text = await stream.until((so) => so.includes('"status":"failed"'));
    const told = messages(text).slice(1);
    expect(told.at(-1)?.params).toMatchObject({
      taskId,
      status: "failed",
      error: { code: -32000, message: "The task expired: its TTL passed before it finished" },
      _meta: { [MetaKey.subscriptionId]: 2 },
    });
    expect(told.filter((message) => message.params?.status === "failed")).toHaveLength(1);
    const got = await replyOf(
      await a.handle(
        post(
          { jsonrpc: "2.0", id: 3, method: "tasks/get", params: { taskId, _meta: META } },
          headers2026("tasks/get", taskId),
        ),
      ),
    );
    expect(got.error).toEqual({ code: -32602, message: "Failed to retrieve task: Task not found" });
    await stream.cancel();
  });

  it("Redis down at the TTL: the listen looks again ever more slowly and warns once; once back, each is told once", async () => {
    const namespace = `tasks-expiry-down-${Date.now()}`;
    const a = redisProcess(namespace);
    const engine = createRedisEngine({ url: redis.url, namespace });
    engines.push(engine);
    // When B looked for each task (once its TTL passed, and again after each failure).
    const looks = new Map<string, number[]>();
    const load = engine.loadTask.bind(engine);
    engine.loadTask = (id) => {
      looks.set(id, [...(looks.get(id) ?? []), performance.now()]);
      return load(id);
    };
    const b = process_(namespace, engine);
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) {
      const body = { jsonrpc: "2.0", id: 10 + i, method: "tools/call", params: { name: "lingering", _meta: META } };
      const created = await replyOf(await a.handle(post(body, headers2026("tools/call", "lingering"))));
      ids.push((created.result as { taskId: string }).taskId);
    }
    const stream = reading(await b.handle(listen(2, ids)));
    await stream.until((text) => text.includes("notifications/subscriptions/acknowledged"));
    looks.clear();
    const from = logged.length;
    await redis.kill();
    expect(looks.size, "Redis stopped before any task's TTL passed").toBe(0);
    // Each task looked for three times while Redis is down: at its TTL, then 1 s and 2 s after each failure.
    await until(() => ids.every((id) => (looks.get(id)?.length ?? 0) >= 3), "three looks for each task");
    const gaps = ids.map((id) => {
      const [, second = 0, third = 0] = looks.get(id) ?? [];
      return third - second;
    });
    expect(Math.min(...gaps)).toBeGreaterThan(1900);
    const warned = logged.slice(from).filter((entry) => entry.message.startsWith("could not look for expired task"));
    expect(warned).toHaveLength(1);
    await redis.restart();
    const text = await stream.until((so) => messages(so).filter((m) => m.params?.status === "failed").length >= 10);
    const failed = messages(text).filter((message) => message.params?.status === "failed");
    expect(new Set(failed.map((message) => message.params?.taskId))).toEqual(new Set(ids));
    expect(failed).toHaveLength(10);
    await stream.cancel();
  });

  it("asking for taskIds without the extension is -32021 (HTTP 400) naming it", async () => {
    const { handle } = process_("memory");
    const response = await handle(
      listen(1, ["any"], { [MetaKey.protocolVersion]: LATEST_STATELESS_VERSION, [MetaKey.clientCapabilities]: {} }),
    );
    expect(response.status).toBe(400);
    expect((await replyOf(response)).error).toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { extensions: { [TASKS]: {} } } },
    });
  });
});
