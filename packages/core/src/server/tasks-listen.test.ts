import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createMemoryEngine } from "../engine/memory.js";
import { TASKS_EXTENSION } from "../protocol/tasks.js";
import { MetaKey } from "../protocol/versions.js";
import { createTestClient } from "../testing/client.js";
import { rpcError } from "../testing/expect-errors.test-util.js";
import type { TestSubscription } from "../testing/listen.js";
import { deferred, WITH_TASKS } from "../testing/task-setup.test-util.js";
import type { JsonRpcNotification } from "../wire/json-rpc.js";
import { createServer } from "./server.js";
import { EXPIRED_ERROR, MAX_LISTEN_TASKS } from "./task-watch.js";

// subscriptions/listen with taskIds (the tasks extension): notifications/tasks for the caller's own tasks.

async function until(ok: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await ok())) await new Promise((resolve) => setImmediate(resolve));
}

/** A server whose `job` waits for the test, reports progress, logs, asks once; its engine counts what is followed. */
function listenServer() {
  const engine = createMemoryEngine();
  const counts = { following: 0 };
  const follow = engine.followTask.bind(engine);
  engine.followTask = (id, listener) => {
    counts.following++;
    const unfollow = follow(id, listener);
    return () => {
      counts.following--;
      unfollow();
    };
  };
  const logged: string[] = [];
  const server = createServer({ name: "listen", version: "1", engine, logger: (entry) => logged.push(entry.message) });
  const gate = deferred();
  server.tool({
    name: "job",
    description: "Waits for the gate, then reports progress and asks once",
    task: "optional",
    handler: async (_args, ctx) => {
      await gate.promise;
      ctx.log.info("begun");
      ctx.progress(1, 2, "half way");
      const answer = await ctx.elicit({ message: "Go on?", schema: { go: z.boolean() } });
      return answer.action === "accept" ? "finished" : "stopped";
    },
  });
  server.tool({ name: "quick", description: "Done at once", task: "optional", handler: () => "quick" });
  // Never ends by itself: asks, or works until stopped, and is kept 300 ms.
  server.tool({
    name: "stuck",
    description: "Asks, or works, until its TTL passes",
    input: { ask: z.boolean() },
    task: { support: "optional", ttlMs: 300 },
    handler: async ({ ask }, ctx) => {
      if (ask) await ctx.elicit({ message: "Anyone?", schema: { yes: z.boolean() } });
      await new Promise((_, reject) => ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason)));
    },
  });
  return { server, gate, counts, logged };
}

const alice = { capabilities: WITH_TASKS, auth: { subject: "alice", scopes: [] } };
const mallory = { capabilities: WITH_TASKS, auth: { subject: "mallory", scopes: [] } };

/** The next notification on the stream whose task is in `status`. */
async function nextWith(stream: TestSubscription, status: string): Promise<JsonRpcNotification> {
  for (;;) {
    const notification = await stream.next();
    if (notification.params?.status === status) return notification;
  }
}

describe("subscriptions/listen with taskIds", () => {
  it("needs the extension (-32021 with requiredCapabilities) and at most 100 ids (-32602)", async () => {
    const { server } = listenServer();
    const bare = await createTestClient(server);
    const refused = await rpcError(bare.listen({ taskIds: ["x"] }));
    expect(refused.code).toBe(-32021);
    expect(refused.data).toEqual({ requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } });
    // A listen without taskIds needs nothing.
    expect((await bare.listen({ toolsListChanged: true })).acknowledged).toEqual({ toolsListChanged: true });
    const c = await createTestClient(server, alice);
    const many = Array.from({ length: MAX_LISTEN_TASKS + 1 }, (_, i) => `t-${i}`);
    const tooMany = await rpcError(c.listen({ taskIds: many }));
    expect([tooMany.code, tooMany.message]).toEqual([
      -32602,
      `Invalid params: notifications.taskIds lists 101 tasks; one listen follows at most ${MAX_LISTEN_TASKS}`,
    ]);
  });

  it("acknowledges only the caller's own tasks that exist: another's looks exactly like an unknown one", async () => {
    const { server, counts } = listenServer();
    const a = await createTestClient(server, alice);
    const m = await createTestClient(server, mallory);
    const mine = (await a.request("tools/call", { name: "job" })).taskId as string;
    const theirs = (await m.request("tools/call", { name: "job" })).taskId as string;
    const following = counts.following;
    const stream = await a.listen({ taskIds: [theirs, mine, "tasks-nonexistent", mine] });
    expect(stream.acknowledged).toEqual({ taskIds: [mine] });
    expect(counts.following).toBe(following + 1);
    const stolen = await m.listen({ taskIds: [mine] });
    const unknown = await m.listen({ taskIds: ["tasks-nonexistent"] });
    expect(stolen.acknowledged).toEqual(unknown.acknowledged);
    expect(stolen.acknowledged).toEqual({});
    expect(counts.following).toBe(following + 1);
  });

  it("tells each change as the DetailedTask tasks/get returns, tagged; the terminal one last, then unfollows", async () => {
    const { server, gate, counts, logged } = listenServer();
    const c = await createTestClient(server, alice);
    const taskId = (await c.request("tools/call", { name: "job" })).taskId as string;
    const stream = await c.listen({ taskIds: [taskId] });
    expect(stream.acknowledged).toEqual({ taskIds: [taskId] });
    gate.resolve();
    const asking = await nextWith(stream, "input_required");
    const asked = await c.request("tasks/get", { taskId });
    const { resultType: _asked, _meta: _askedMeta, ...detailed } = asked;
    expect(asking.params).toEqual({ ...detailed, _meta: { [MetaKey.subscriptionId]: stream.id } });
    expect(asking.params?.inputRequests).toEqual({
      "elicit-1": expect.objectContaining({ method: "elicitation/create" }),
    });
    await c.request("tasks/update", {
      taskId,
      inputResponses: { "elicit-1": { action: "accept", content: { go: true } } },
    });
    const completed = await nextWith(stream, "completed");
    const { resultType: _done, _meta: _doneMeta, ...final } = await c.request("tasks/get", { taskId });
    expect(completed.params).toEqual({ ...final, _meta: { [MetaKey.subscriptionId]: stream.id } });
    expect(completed.params?.result).toMatchObject({ content: [{ type: "text", text: "finished" }] });
    // Nothing follows a terminal task: the stream and the runner both let it go.
    await until(() => counts.following === 0);
    const told = stream.notifications.length;
    await c.request("tasks/cancel", { taskId });
    expect(stream.notifications.length).toBe(told);
    expect(stream.notifications.at(-1)).toBe(completed);
    // Only task changes on the stream, and nowhere a progress or log notification; the log went to the server's.
    expect(new Set(stream.notifications.map((n) => n.method))).toEqual(new Set(["notifications/tasks"]));
    expect(stream.notifications.some((n) => n.params?.statusMessage === "half way")).toBe(true);
    const methods = c.notifications.map((n) => n.method);
    expect(methods).not.toContain("notifications/progress");
    expect(methods).not.toContain("notifications/message");
    expect(logged.some((line) => line.includes("begun"))).toBe(true);
  });

  it("a task already terminal is acknowledged and not followed; the stream's end unfollows the rest", async () => {
    const { server, counts } = listenServer();
    const c = await createTestClient(server, alice);
    const quick = (await c.request("tools/call", { name: "quick" })).taskId as string;
    await until(async () => (await c.request("tasks/get", { taskId: quick })).status === "completed");
    const job = (await c.request("tools/call", { name: "job" })).taskId as string;
    const following = counts.following;
    const stream = await c.listen({ taskIds: [quick, job] });
    expect(stream.acknowledged).toEqual({ taskIds: [quick, job] });
    expect(counts.following).toBe(following + 1);
    await stream.close();
    await until(() => counts.following === following);
    expect(stream.notifications).toEqual([]);
  });

  it("a task whose TTL passes before it ends is told failed (expired) once, then let go; tasks/get no longer finds it", async () => {
    const { server, counts } = listenServer();
    const c = await createTestClient(server, alice);
    const working = (await c.request("tools/call", { name: "stuck", arguments: { ask: false } })).taskId as string;
    const asking = (await c.request("tools/call", { name: "stuck", arguments: { ask: true } })).taskId as string;
    const stream = await c.listen({ taskIds: [working, asking] });
    expect(stream.acknowledged).toEqual({ taskIds: [working, asking] });
    const expired: Record<string, unknown>[] = [];
    while (expired.length < 2) {
      const told = await nextWith(stream, "failed");
      expired.push(told.params as Record<string, unknown>);
    }
    expect(expired.map((task) => task.taskId).sort()).toEqual([working, asking].sort());
    for (const task of expired) {
      expect(task).toMatchObject({ status: "failed", statusMessage: EXPIRED_ERROR.message, error: EXPIRED_ERROR });
      expect(task).not.toHaveProperty("inputRequests");
      expect(Date.parse(task.lastUpdatedAt as string)).toBeGreaterThan(Date.parse(task.createdAt as string) + 300);
    }
    // The stream and the runners let both go; the tasks are gone as any expired one.
    await until(() => counts.following === 0);
    for (const taskId of [working, asking]) {
      expect((await rpcError(c.request("tasks/get", { taskId }))).message).toBe(
        "Failed to retrieve task: Task not found",
      );
    }
    expect(stream.notifications.filter((n) => n.params?.status === "failed")).toHaveLength(2);
  });
});
