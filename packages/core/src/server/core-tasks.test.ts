import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { RequestContext } from "../context/context.js";
import { TASKS_EXTENSION } from "../protocol/tasks.js";
import { LATEST_HANDSHAKE_VERSION, LATEST_STATELESS_VERSION } from "../protocol/versions.js";
import { createTestClient, type TestClient, type TestClientOptions } from "../testing/client.js";
import { rpcError } from "../testing/expect-errors.test-util.js";
import { confirmTool, deferred, slowTool, until } from "../testing/task-setup.test-util.js";
import { ClientError, McpError } from "../wire/errors.js";
import type { ServerOptions } from "./options.js";
import { createServer } from "./server.js";

// Tasks as 2025-11-25 has them (params.task, tasks/get|result|list|cancel, the tasks capability), on the same runner,
// store and handler API as the tasks extension's.

const RELATED = "io.modelcontextprotocol/related-task";

function taskServer(options: Partial<ServerOptions> = {}) {
  const server = createServer({ name: "tasks", version: "1", ...options });
  const gate = deferred();
  server.tool(slowTool(gate.promise));
  server.tool({ name: "must", description: "Only as a task", task: "required", handler: () => "ok" });
  server.tool({ name: "plain", description: "Never a task", handler: () => "plain" });
  server.tool({
    name: "broken",
    description: "Throws a plain error",
    task: "optional",
    handler: () => {
      throw new Error("it broke");
    },
  });
  server.tool(confirmTool());
  return { server, gate };
}

/** Asks once; says what went wrong (for the tests of answers that are not results). */
const askOrSay = {
  name: "ask_or_say",
  description: "Asks once; says what went wrong: the client's error answer, or what was wrong with its answer",
  task: "optional" as const,
  handler: async (_args: Record<string, never>, ctx: RequestContext) => {
    try {
      await ctx.elicit({ message: "Sure?", schema: { confirm: z.boolean() } });
      return "answered";
    } catch (error) {
      if (error instanceof ClientError) return `refused: ${error.method} ${error.code} ${error.message}`;
      if (error instanceof McpError) return `refused: ${error.code} ${error.message}`;
      throw error;
    }
  },
};

const V1 = { protocolVersion: LATEST_HANDSHAKE_VERSION } as const;

async function handshake(server: ReturnType<typeof taskServer>["server"], options: TestClientOptions = {}) {
  return createTestClient(server, { ...V1, ...options });
}

type Task = { taskId: string; status: string; ttl: number | null; statusMessage?: string };

async function startTask(c: TestClient, name: string, task: Record<string, unknown> = {}): Promise<Task> {
  const created = await c.request("tools/call", { name, arguments: {}, task });
  expect(Object.keys(created)).toEqual(["task"]);
  return created.task as Task;
}

const get = (c: TestClient, taskId: string) => c.request("tasks/get", { taskId }) as Promise<Task>;

/** Task `taskId` once it has ended, as tasks/get polled it. */
const ended = (c: TestClient, taskId: string) =>
  until(
    () => get(c, taskId),
    (now) => now.status !== "working" && now.status !== "input_required",
  );

/** A client that never answers what it is asked (but declares that it can be). */
const silent = () => new Promise<never>(() => {});

/**
 * A task of `tool` (made with `task`) whose question the connection that made it never answered, that connection
 * now gone: the question goes out on a tasks/result only.
 */
async function leftAsking(
  server: ReturnType<typeof taskServer>["server"],
  auth: TestClientOptions["auth"],
  tool: string,
  task: Record<string, unknown> = {},
): Promise<Task> {
  const first = await handshake(server, { auth, elicit: silent });
  const made = await startTask(first, tool, task);
  await until(
    () => get(first, made.taskId),
    (now) => now.status === "input_required",
  );
  first.close();
  return made;
}

/** What a reply came to: its result's content, or its error's code and message. */
function outcomeOf(reply: Promise<Record<string, unknown>>) {
  return reply.then(
    ({ content, isError }) => ({ content, isError }),
    (error: McpError) => ({ error: [error.code, error.message] }),
  );
}

/** Answer the server's `n`th elicitation/create to `c` (from 0) with a raw `result`, as no well-behaved client would. */
async function answerRaw(c: TestClient, n: number, result: unknown): Promise<void> {
  const asked = await until(
    async () =>
      c.messages.filter(
        (r) => r.direction === "out" && (r.message as { method?: unknown }).method === "elicitation/create",
      ),
    (found) => found.length > n,
  );
  const id = (asked[n]?.message as { id?: unknown } | undefined)?.id;
  await c.send(JSON.stringify({ jsonrpc: "2.0", id, result }));
}

describe("tasks in 2025-11-25", () => {
  it("are declared in initialize and per tool in tools/list; not before 2025-11-25", async () => {
    const { server } = taskServer();
    const c = await handshake(server);
    expect((c.serverResult.capabilities as Record<string, unknown>).tasks).toEqual({
      list: {},
      cancel: {},
      requests: { tools: { call: {} } },
    });
    const tools = (await c.request("tools/list")).tools as { name: string; execution?: unknown }[];
    expect(Object.fromEntries(tools.map((tool) => [tool.name, tool.execution]))).toEqual({
      slow: { taskSupport: "optional" },
      must: { taskSupport: "required" },
      plain: undefined,
      broken: { taskSupport: "optional" },
      confirm: { taskSupport: "optional" },
    });
    const old = await handshake(server, { protocolVersion: "2025-06-18" });
    expect((old.serverResult.capabilities as Record<string, unknown>).tasks).toBeUndefined();
    expect(JSON.stringify(await old.request("tools/list"))).not.toMatch(/execution/);
    expect((await rpcError(old.request("tasks/get", { taskId: "x" }))).code).toBe(-32601);
  });

  it("run a tools/call with params.task: polled, listed, its result fetched with the related-task meta", async () => {
    const { server, gate } = taskServer();
    const c = await handshake(server);
    const task = await startTask(c, "slow", { ttl: 60_000 });
    expect(task).toMatchObject({ status: "working", ttl: 60_000, pollInterval: 1000 });
    expect(task.taskId).toMatch(/^[0-9a-f-]{36}$/);
    await until(
      () => get(c, task.taskId),
      (now) => now.statusMessage === "half way",
    );
    expect((await c.request("tasks/list")).tasks).toEqual([expect.objectContaining({ taskId: task.taskId })]);
    const result = c.request("tasks/result", { taskId: task.taskId });
    gate.resolve();
    expect(await result).toEqual({
      content: [{ type: "text", text: "done" }],
      isError: false,
      _meta: { [RELATED]: { taskId: task.taskId } },
    });
    expect(await get(c, task.taskId)).toMatchObject({ status: "completed" });
    // The status changes went to the client that made the task, without the related-task meta.
    const statuses = async () =>
      c.notifications.filter((n) => n.method === "notifications/tasks/status").map((n) => n.params);
    const told = await until(statuses, (all) => all.some((params) => params?.status === "completed"));
    expect(told.at(-1)).toMatchObject({ taskId: task.taskId, status: "completed" });
    expect(JSON.stringify(told)).not.toContain(RELATED);
  });

  it("keep the request's progress token valid for the task's life: its progress goes to the client that made it", async () => {
    const { server, gate } = taskServer();
    const c = await handshake(server);
    const created = await c.request("tools/call", {
      name: "slow",
      arguments: {},
      task: {},
      _meta: { progressToken: "p-1" },
    });
    const progress = await until(
      async () => c.notifications.filter((n) => n.method === "notifications/progress").map((n) => n.params),
      (all) => all.length > 0,
    );
    expect(progress).toEqual([{ progressToken: "p-1", progress: 1, total: 2, message: "half way" }]);
    gate.resolve();
    await c.request("tasks/result", { taskId: (created.task as Task).taskId });
  });

  it("ask through the connection that made the task: the question carries the related-task meta", async () => {
    const { server } = taskServer();
    const asked: Record<string, unknown>[] = [];
    const c = await handshake(server, {
      elicit: (params) => {
        asked.push(params);
        return { action: "accept", content: { confirm: true } };
      },
    });
    const task = await startTask(c, "confirm");
    expect(await c.request("tasks/result", { taskId: task.taskId })).toMatchObject({
      content: [{ type: "text", text: "confirmed true" }],
    });
    // Sent on the side channel, and perhaps on tasks/result too: whichever is answered first is the answer.
    expect(asked.length).toBeGreaterThan(0);
    for (const params of asked) {
      expect(params).toMatchObject({ message: "Sure?", _meta: { [RELATED]: { taskId: task.taskId } } });
    }
  });

  // A client ties a question to a task it knows: read in one chunk with the reply that announces the task, it may be
  // handled first (the ext-tasks client then answers cancel). So the question waits for the client to name the task.
  it("ask the connection that made the task only once its client has named the task", async () => {
    const { server } = taskServer();
    const c = await handshake(server, { elicit: () => ({ action: "accept", content: { confirm: true } }) });
    const task = await startTask(c, "confirm");
    const sent = (method: string) =>
      c.messages.filter((r) => r.direction === "out" && (r.message as { method?: unknown }).method === method);
    // Told the task waits on it (the question is in the record), but not asked yet.
    await until(
      async () => sent("notifications/tasks/status"),
      (told) => told.some((r) => JSON.stringify(r.message).includes('"input_required"')),
    );
    expect(sent("elicitation/create")).toEqual([]);
    await get(c, task.taskId);
    expect(await ended(c, task.taskId)).toMatchObject({ status: "completed" });
    expect(sent("elicitation/create")).toHaveLength(1);
  });

  it("ask on tasks/result when the connection that made the task is gone (same principal, another session)", async () => {
    const { server } = taskServer();
    const auth = { subject: "alice", scopes: [] };
    const task = await leftAsking(server, auth, "confirm");
    const second = await handshake(server, { auth, elicit: () => ({ action: "accept", content: { confirm: false } }) });
    expect(await second.request("tasks/result", { taskId: task.taskId })).toMatchObject({
      content: [{ type: "text", text: "confirmed false" }],
    });
  });

  // The text: tasks/result blocks until the task ends, then answers what the request would have; outside a task, a
  // JSON-RPC error answer is the handler's ask rejecting with it (a ClientError).
  it("a question answered on tasks/result with a JSON-RPC error: the task gets that error, tasks/result its end", async () => {
    const { server } = taskServer();
    server.tool(askOrSay);
    const auth = { subject: "alice", scopes: [] };
    const refuse = () => {
      throw new McpError(-32001, "no one to ask");
    };
    for (const [tool, expected] of [
      [
        "confirm",
        {
          isError: true,
          content: [{ type: "text", text: "The client answered elicitation/create with error -32001: no one to ask" }],
        },
      ],
      [
        "ask_or_say",
        {
          content: [
            {
              type: "text",
              text: "refused: elicitation/create -32001 The client answered elicitation/create with error -32001: no one to ask",
            },
          ],
        },
      ],
    ] as const) {
      const task = await leftAsking(server, auth, tool);
      const second = await handshake(server, { auth, elicit: refuse });
      expect(await second.request("tasks/result", { taskId: task.taskId })).toMatchObject({
        ...expected,
        _meta: { [RELATED]: { taskId: task.taskId } },
      });
      const ended = await get(second, task.taskId);
      expect(ended.status).toBe(tool === "confirm" ? "failed" : "completed");
    }
  });

  it("a question answered on the side channel with a JSON-RPC error: the task gets it, polled without tasks/result", async () => {
    const { server } = taskServer();
    const c = await handshake(server, {
      elicit: () => {
        throw new McpError(-32001, "no one to ask");
      },
    });
    const task = await startTask(c, "confirm");
    expect(await ended(c, task.taskId)).toMatchObject({
      status: "failed",
      statusMessage: "The client answered elicitation/create with error -32001: no one to ask",
    });
  });

  // Outside a task, a result no answer can be (not an object, nested too deep) rejects the handler's ask with -32602
  // naming it; inside one the same, and tasks/result waits on for the task's end, then answers what the call would have.
  it("a question answered on tasks/result with a malformed result: the handler sees what it would outside a task", async () => {
    const { server } = taskServer();
    server.tool(askOrSay);
    const auth = { subject: "alice", scopes: [] };
    let deep: unknown = "end";
    for (let i = 0; i < 70; i++) deep = { deep };
    const said = {
      ask_or_say: {
        content: [
          { type: "text", text: "refused: -32602 The client's answer to elicitation/create has no result object" },
        ],
        isError: false,
      },
    };
    for (const tool of ["confirm", "ask_or_say"] as const) {
      for (const malformed of [42, [], { action: "accept", content: deep }]) {
        const outside = await handshake(server, { auth, elicit: silent });
        const direct = outcomeOf(outside.request("tools/call", { name: tool, arguments: {} }));
        await answerRaw(outside, 0, malformed);
        const expected = await direct;
        if (tool === "ask_or_say" && malformed === 42) expect(expected).toEqual(said.ask_or_say);
        const task = await leftAsking(server, auth, tool);
        const second = await handshake(server, { auth, elicit: silent });
        const waiting = outcomeOf(second.request("tasks/result", { taskId: task.taskId }));
        await answerRaw(second, 0, malformed);
        expect(await waiting, `${tool} answered ${JSON.stringify(malformed).slice(0, 40)}`).toEqual(expected);
        expect((await get(second, task.taskId)).status).toBe(tool === "confirm" ? "failed" : "completed");
      }
    }
  });

  it("a question answered on the side channel with a malformed result: the task gets it, polled without tasks/result", async () => {
    const { server } = taskServer();
    const c = await handshake(server, { elicit: silent });
    const task = await startTask(c, "confirm");
    // Named first: its question goes out once the client has named the task.
    await get(c, task.taskId);
    await answerRaw(c, 0, []);
    expect(await ended(c, task.taskId)).toMatchObject({
      status: "failed",
      statusMessage: "The client's answer to elicitation/create has no result object",
    });
  });

  // The text: tasks/result MUST block until the task is terminal. A question the client lets time out is no answer:
  // the task stays input_required, and tasks/result waits on until it is answered (another tasks/result carries it),
  // cancelled (what tasks/result answers for a cancelled task), or its TTL passes (it is deleted: not found).
  it("a question left unanswered on tasks/result: it waits on until the task is answered, cancelled or expired", async () => {
    const { server } = taskServer({ clientRequestTimeoutMs: 100 });
    const auth = { subject: "alice", scopes: [] };
    for (const end of ["answered", "cancelled", "expired"] as const) {
      const task = await leftAsking(server, auth, "confirm", end === "expired" ? { ttl: 1000 } : {});
      const second = await handshake(server, { auth, elicit: silent });
      let settled = false;
      const waiting = outcomeOf(second.request("tasks/result", { taskId: task.taskId })).finally(() => {
        settled = true;
      });
      // The question it carried timed out: withdrawn, and still the task's.
      await until(
        async () => second.notifications.filter((n) => n.method === "notifications/cancelled"),
        (withdrawn) => withdrawn.length > 0,
      );
      expect((await get(second, task.taskId)).status).toBe("input_required");
      expect(settled).toBe(false);
      if (end === "answered") {
        const third = await handshake(server, {
          auth,
          elicit: () => ({ action: "accept", content: { confirm: true } }),
        });
        const result = { content: [{ type: "text", text: "confirmed true" }], isError: false };
        expect(await outcomeOf(third.request("tasks/result", { taskId: task.taskId }))).toEqual(result);
        expect(await waiting).toEqual(result);
      } else if (end === "cancelled") {
        await second.request("tasks/cancel", { taskId: task.taskId });
        expect(await waiting).toEqual({
          error: [-32602, `Task ${task.taskId} was cancelled: it has no result`],
        });
      } else {
        expect(await waiting).toEqual({ error: [-32602, "Failed to retrieve task: Task not found"] });
      }
    }
  });

  it("cancel: the Task as cancelled; a terminal task is -32602; its result is -32602", async () => {
    const { server } = taskServer();
    const c = await handshake(server);
    const task = await startTask(c, "slow");
    expect(await c.request("tasks/cancel", { taskId: task.taskId })).toMatchObject({
      taskId: task.taskId,
      status: "cancelled",
      statusMessage: "The task was cancelled by request.",
    });
    const again = await rpcError(c.request("tasks/cancel", { taskId: task.taskId }));
    expect([again.code, again.message]).toEqual([-32602, "Cannot cancel task: already in terminal status 'cancelled'"]);
    expect((await rpcError(c.request("tasks/result", { taskId: task.taskId }))).code).toBe(-32602);
  });

  it("a tool's isError result is a failed task whose tasks/result is that result", async () => {
    const { server } = taskServer();
    const c = await handshake(server);
    const task = await startTask(c, "broken");
    const result = await c.request("tasks/result", { taskId: task.taskId });
    expect(result).toMatchObject({ isError: true, content: [{ type: "text", text: "it broke" }] });
    expect(await get(c, task.taskId)).toMatchObject({ status: "failed", statusMessage: "it broke" });
  });

  it("lower a requested ttl to the server's, and keep a shorter one", async () => {
    const { server } = taskServer();
    const c = await handshake(server);
    expect((await startTask(c, "must", { ttl: 5000 })).ttl).toBe(5000);
    expect((await startTask(c, "must", { ttl: 2 ** 31 - 1 })).ttl).toBe(3_600_000);
    expect((await startTask(c, "must")).ttl).toBe(3_600_000);
  });
});

describe("tasks in 2025-11-25, hostile", () => {
  it("refuse a bad params.task with -32602 and a tool that cannot run as asked with -32601, before it runs", async () => {
    const { server } = taskServer();
    const c = await handshake(server);
    for (const task of [
      "soon",
      1,
      null,
      [],
      { ttl: -1 },
      { ttl: 0 },
      { ttl: 1.5 },
      { ttl: "60000" },
      { ttl: 2 ** 31 },
    ]) {
      const error = await rpcError(c.request("tools/call", { name: "slow", arguments: {}, task }));
      expect([error.code, error.message]).toEqual([-32602, expect.stringMatching(/^Invalid params: task/)]);
    }
    expect((await rpcError(c.request("tools/call", { name: "plain", arguments: {}, task: {} }))).code).toBe(-32601);
    expect((await rpcError(c.request("tools/call", { name: "must", arguments: {} }))).code).toBe(-32601);
    // A server that declares no tasks runs the request as any other, the field ignored.
    const plain = createServer({ name: "plain", version: "1" });
    plain.tool({ name: "x", description: "x", handler: () => "x" });
    const p = await handshake(plain);
    expect(await p.request("tools/call", { name: "x", arguments: {}, task: { ttl: -1 } })).toMatchObject({
      content: [{ type: "text", text: "x" }],
    });
  });

  it("answer another's task, the other generation's and a missing one identically; refuse the other's methods", async () => {
    const { server } = taskServer();
    const alice = await handshake(server, { auth: { subject: "alice", scopes: [] } });
    const bob = await handshake(server, { auth: { subject: "bob", scopes: [] } });
    const anonymous = await handshake(server);
    const otherSession = await handshake(server);
    const modern = await createTestClient(server, {
      protocolVersion: LATEST_STATELESS_VERSION,
      capabilities: { extensions: { [TASKS_EXTENSION]: {} } },
    });
    const hers = (await startTask(alice, "slow")).taskId;
    const sessions = (await startTask(anonymous, "slow")).taskId;
    const extension = (await modern.request("tools/call", { name: "slow", arguments: {} })).taskId as string;
    const missing = crypto.randomUUID();
    const answers = async (c: TestClient, method: string, taskId: string) => {
      const error = await rpcError(c.request(method, { taskId }));
      return [error.code, error.message, error.data];
    };
    for (const method of ["tasks/get", "tasks/result", "tasks/cancel"]) {
      const expected = await answers(bob, method, missing);
      expect(expected).toEqual([-32602, "Failed to retrieve task: Task not found", undefined]);
      expect(await answers(bob, method, hers)).toEqual(expected);
      expect(await answers(bob, method, extension)).toEqual(expected);
      expect(await answers(otherSession, method, sessions)).toEqual(expected);
      expect(await answers(anonymous, method, hers)).toEqual(expected);
    }
    expect(await modern.request("tasks/get", { taskId: missing }).catch((e) => e.message)).toBe(
      await modern.request("tasks/get", { taskId: hers }).catch((e) => e.message),
    );
    expect((await bob.request("tasks/list")).tasks).toEqual([]);
    expect((await otherSession.request("tasks/list")).tasks).toEqual([]);
    expect((await anonymous.request("tasks/list")).tasks).toEqual([expect.objectContaining({ taskId: sessions })]);
    // Each generation's own methods: tasks/update is the extension's; tasks/result and tasks/list 2025-11-25's.
    expect((await rpcError(alice.request("tasks/update", { taskId: hers, inputResponses: {} }))).code).toBe(-32601);
    expect((await rpcError(modern.request("tasks/result", { taskId: extension }))).code).toBe(-32601);
    expect((await rpcError(modern.request("tasks/list"))).code).toBe(-32601);
    for (const cursor of ["x", 1, "000000000000000:not-a-uuid"]) {
      expect((await rpcError(alice.request("tasks/list", { cursor }))).code).toBe(-32602);
    }
    expect((await rpcError(alice.request("tasks/get", { taskId: 7 }))).code).toBe(-32602);
  });

  it("ignore a 2025-11-25 params.task in 2026-07-28, whatever it holds (the extension decides there)", async () => {
    const { server } = taskServer();
    const plain = await createTestClient(server, { protocolVersion: LATEST_STATELESS_VERSION });
    expect(await plain.request("tools/call", { name: "plain", arguments: {}, task: "soon" })).toMatchObject({
      content: [{ type: "text", text: "plain" }],
    });
    const modern = await createTestClient(server, {
      protocolVersion: LATEST_STATELESS_VERSION,
      capabilities: { extensions: { [TASKS_EXTENSION]: {} } },
    });
    expect(await modern.request("tools/call", { name: "must", arguments: {}, task: { ttl: -1 } })).toMatchObject({
      resultType: "task",
      status: "working",
    });
  });
});
