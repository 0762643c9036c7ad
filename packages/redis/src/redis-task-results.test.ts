import { createServer, LATEST_HANDSHAKE_VERSION } from "@toolsmith/core";
import { countFollows, untilLive } from "@toolsmith/core/engine-suite";
import { createTestClient, type TestClient } from "@toolsmith/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { useRedis } from "./redis.test-util.js";
import { createRedisEngine } from "./redis-engine.js";

const at = useRedis();

// 2025-11-25's tasks/result on the Redis engine: each waiting one follows its task (a subscription to its channel)
// until the task ends; one session may have 100 waiting, and each lets go when cancelled or its connection closes.

const clients: TestClient[] = [];
afterEach(() => {
  for (const client of clients.splice(0)) client.close();
});

/** How many subscribers Redis has on task `id`'s channel (one a process, however many follow it there). */
async function subscribers(namespace: string, id: string): Promise<number> {
  const [, count] = (await at.raw.pubsub("NUMSUB", `ts:{${namespace}}:tc:${id}`)) as [string, number];
  return count;
}

async function setUp() {
  const namespace = crypto.randomUUID();
  const redis = createRedisEngine({ url: at.redis.url, namespace });
  at.engines.push(redis);
  const { engine, live } = countFollows(redis);
  const server = createServer({ name: "results", version: "1.0.0", engine });
  server.tool({
    name: "forever",
    description: "Runs until cancelled",
    task: "required",
    handler: (_args, ctx) =>
      new Promise<never>((_, reject) => ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason))),
  });
  const client = async () => {
    const made = await createTestClient(server, { protocolVersion: LATEST_HANDSHAKE_VERSION });
    clients.push(made);
    return made;
  };
  const task = async (c: TestClient) =>
    ((await c.request("tools/call", { name: "forever", arguments: {}, task: {} })).task as { taskId: string }).taskId;
  return { server, live, client, task, namespace };
}

describe("2025-11-25 tasks/result on the Redis engine", () => {
  it("holds at most 100 a session (-32000 beyond), all let go when the connection closes", async () => {
    const { live, client, task } = await setUp();
    const c = await client();
    const taskId = await task(c);
    await untilLive(live, 1);
    const waiting = Array.from({ length: 100 }, () => c.request("tasks/result", { taskId }).catch((e: Error) => e));
    await untilLive(live, 101);
    const refused = await c.request("tasks/result", { taskId }).catch((e: { code?: number }) => e);
    expect(refused).toMatchObject({ code: -32000 });
    c.close();
    await untilLive(live, 1);
    for (const error of await Promise.all(waiting)) expect(error).toBeInstanceOf(Error);
  });

  it("lets go of a cancelled one's follow, and of the task's once it is cancelled", async () => {
    const { live, client, task, namespace } = await setUp();
    const c = await client();
    const taskId = await task(c);
    await untilLive(live, 1);
    expect(await subscribers(namespace, taskId)).toBe(1);
    const cancel = new AbortController();
    const cancelled = c.request("tasks/result", { taskId }, { signal: cancel.signal }).catch((e: Error) => e);
    await untilLive(live, 2);
    cancel.abort();
    expect(await cancelled).toMatchObject({ name: "AbortError" });
    await untilLive(live, 1);
    const waiting = c.request("tasks/result", { taskId }).catch((e: { code?: number }) => e);
    await untilLive(live, 2);
    await c.request("tasks/cancel", { taskId });
    // A cancelled task has no result: -32602, as tasks/result answers it.
    expect(await waiting).toMatchObject({ code: -32602 });
    await untilLive(live, 0);
    // And Redis: the process's subscription to the task's channel is gone.
    while ((await subscribers(namespace, taskId)) !== 0) await new Promise((resolve) => setImmediate(resolve));
  });
});
