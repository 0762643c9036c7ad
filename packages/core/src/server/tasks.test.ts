import { describe, expect, it } from "vitest";
import { z } from "zod";
import { EngineUnavailable } from "../engine/engine.js";
import { createMemoryEngine } from "../engine/memory.js";
import { TASKS_EXTENSION } from "../protocol/tasks.js";
import { createTestClient, type TestClientOptions } from "../testing/client.js";
import { definitionError, rpcError } from "../testing/expect-errors.test-util.js";
import { confirmTool, deferred, slowTool, until, WITH_TASKS } from "../testing/task-setup.test-util.js";
import type { Server } from "./servable.js";
import { createServer } from "./server.js";

// The tasks extension in core: a tools/call that becomes a task, and tasks/get|update|cancel.

function taskServer(options: Parameters<typeof createServer>[0] = { name: "tasks", version: "1" }) {
  const server = createServer(options);
  const gate = deferred();
  const calls = { confirm: 0 };
  server.tool({
    name: "greet",
    description: "Greets",
    input: { name: z.string() },
    handler: ({ name }) => `Hello, ${name}!`,
  });
  server.tool(slowTool(gate.promise));
  server.tool({ name: "must", description: "Only as a task", task: "required", handler: () => "ok" });
  server.tool({
    name: "broken",
    description: "Throws a plain error",
    task: { support: "optional", ttlMs: 5000, pollIntervalMs: 50 },
    handler: () => {
      throw new Error("it broke");
    },
  });
  server.tool({
    name: "protocol",
    description: "Throws a protocol error",
    task: "optional",
    handler: async () => {
      const { McpError } = await import("../wire/errors.js");
      throw new McpError(-32603, "the job failed");
    },
  });
  server.tool(
    confirmTool(() => {
      calls.confirm++;
    }),
  );
  server.tool({
    name: "two",
    description: "Asks twice at once",
    task: "optional",
    handler: async (_args, ctx) => {
      const [a, b] = await Promise.all([
        ctx.elicit({ message: "Name?", schema: { name: z.string() } }),
        ctx.elicit({ message: "Sure?", schema: { confirm: z.boolean() } }),
      ]);
      return `${a.action}/${b.action}`;
    },
  });
  return { server, gate, calls };
}

async function client(server: Server, options: TestClientOptions = {}) {
  return createTestClient(server, { capabilities: WITH_TASKS, ...options });
}

describe("the task option", () => {
  it("is checked at registration", () => {
    const server = createServer({ name: "t", version: "1" });
    const handler = () => "x";
    expect(
      definitionError(() => server.tool({ name: "a", description: "a", task: "sometimes" as never, handler })).message,
    ).toMatch(/task/);
    expect(
      definitionError(() =>
        server.tool({ name: "b", description: "b", task: { support: "optional", ttlMs: -1 }, handler }),
      ).message,
    ).toMatch(/ttlMs/);
    expect(
      definitionError(() =>
        server.tool({ name: "c", description: "c", task: { support: "optional", detach: "later" as never }, handler }),
      ).message,
    ).toMatch(/detach/);
    expect(
      definitionError(() => createServer({ name: "d", version: "1", tasks: { pollIntervalMs: 0 } })).message,
    ).toMatch(/pollIntervalMs/);
  });

  it("is never listed, and server/discover advertises the extension only when a tool (a module's included) may be a task", async () => {
    const { server } = taskServer();
    const c = await client(server);
    expect(JSON.stringify(await c.listTools())).not.toMatch(/"task"|execution/);
    expect((c.serverResult.capabilities as Record<string, unknown>).extensions).toEqual({ [TASKS_EXTENSION]: {} });
    expect((c.serverResult.capabilities as Record<string, unknown>).tasks).toBeUndefined();

    const plain = createServer({ name: "plain", version: "1" });
    plain.tool({ name: "x", description: "x", handler: () => 1 });
    expect(((await client(plain)).serverResult.capabilities as Record<string, unknown>).extensions).toBeUndefined();
    const module = createServer({ name: "module", version: "1" });
    module.tool({ name: "y", description: "y", task: "optional", handler: () => 1 });
    plain.mount("m", module);
    expect(((await client(plain)).serverResult.capabilities as Record<string, unknown>).extensions).toEqual({
      [TASKS_EXTENSION]: {},
    });
  });
});

describe("tools/call decides", () => {
  it("a declaring request of an optional tool gets a flat CreateTaskResult, durable at once", async () => {
    const { server, gate } = taskServer();
    const c = await client(server);
    const created = await c.request("tools/call", { name: "slow" });
    expect(created).toMatchObject({ resultType: "task", status: "working", ttlMs: 3_600_000, pollIntervalMs: 1000 });
    expect(created.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/);
    for (const key of ["task", "result", "error", "inputRequests", "requestState", "content"])
      expect(created).not.toHaveProperty(key);
    const taskId = created.taskId as string;
    const got = await c.request("tasks/get", { taskId });
    expect(got).toMatchObject({ resultType: "complete", taskId, status: "working" });
    await until(
      () => c.request("tasks/get", { taskId }),
      (t) => t.statusMessage === "half way",
    );
    gate.resolve();
    const done = await until(
      () => c.request("tasks/get", { taskId }),
      (t) => t.status === "completed",
    );
    expect(done.result).toMatchObject({ content: [{ type: "text", text: "done" }] });
    expect(done).not.toHaveProperty("inputRequests");
  });

  it("a request without the extension runs an optional tool synchronously, and is refused a required one (-32021)", async () => {
    const { server, gate } = taskServer();
    gate.resolve();
    const c = await createTestClient(server);
    expect(await c.callTool("slow")).toMatchObject({ content: [{ type: "text", text: "done" }] });
    const error = await rpcError(c.callTool("must"));
    expect(error.code).toBe(-32021);
    expect(error.data).toEqual({ requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } });
    // A forbidden tool is never a task, declared or not.
    expect(await (await client(server)).callTool("greet", { name: "x" })).toMatchObject({
      content: [{ text: "Hello, x!" }],
    });
  });

  it("a client of a revision without tasks gets -32021 for a required tool and -32601 for tasks/*, whatever it declares", async () => {
    const { server } = taskServer();
    const c = await createTestClient(server, { protocolVersion: "2025-06-18", capabilities: WITH_TASKS });
    expect((await rpcError(c.callTool("must"))).code).toBe(-32021);
    expect(await c.callTool("broken")).toMatchObject({ isError: true });
    for (const method of ["tasks/get", "tasks/update", "tasks/cancel", "tasks/result", "tasks/list"]) {
      expect((await rpcError(c.request(method, { taskId: "x" }))).code).toBe(-32601);
    }
  });

  it("a 2025-11-25 client gets that revision's own tasks (core-tasks.test.ts), never the extension's", async () => {
    const { server } = taskServer();
    const c = await createTestClient(server, { protocolVersion: "2025-11-25", capabilities: WITH_TASKS });
    expect((await rpcError(c.callTool("must"))).code).toBe(-32601);
    expect((await rpcError(c.request("tasks/update", { taskId: "x", inputResponses: {} }))).code).toBe(-32601);
    expect((await rpcError(c.request("tasks/get", { taskId: "x" }))).code).toBe(-32602);
  });

  it("a hidden tool stays unknown, declared or not", async () => {
    const server = createServer({ name: "hidden", version: "1" });
    server.tool({ name: "secret", description: "s", task: "required", guard: () => false, handler: () => 1 });
    for (const c of [await client(server), await createTestClient(server)]) {
      const error = await rpcError(c.callTool("secret"));
      expect([error.code, error.message]).toEqual([-32602, "Unknown tool: secret"]);
    }
  });
});

describe("a task's outcome", () => {
  it("a plain throw completes with an isError result; a protocol error fails with its error", async () => {
    const { server } = taskServer();
    const c = await client(server);
    const broken = await c.request("tools/call", { name: "broken" });
    expect(broken).toMatchObject({ ttlMs: 5000, pollIntervalMs: 50 });
    const completed = await until(
      () => c.request("tasks/get", { taskId: broken.taskId }),
      (t) => t.status !== "working",
    );
    expect(completed).toMatchObject({ status: "completed", result: { isError: true } });
    const protocol = await c.request("tools/call", { name: "protocol" });
    const failed = await until(
      () => c.request("tasks/get", { taskId: protocol.taskId }),
      (t) => t.status !== "working",
    );
    expect(failed).toMatchObject({
      status: "failed",
      statusMessage: "the job failed",
      error: { code: -32603, message: "the job failed" },
    });
    expect(failed).not.toHaveProperty("result");
  });

  it("the engine's store out of reach fails the task with core's one outage answer", async () => {
    const server = createServer({ name: "outage", version: "1" });
    server.tool({
      name: "outage",
      description: "Meets an unreachable store",
      task: "optional",
      handler: () => {
        throw new EngineUnavailable("the store is down", { retryAfterSeconds: 3 });
      },
    });
    const c = await client(server);
    const { taskId } = await c.request("tools/call", { name: "outage" });
    const failed = await until(
      () => c.request("tasks/get", { taskId }),
      (t) => t.status !== "working",
    );
    const message = "Service unavailable: the server's state store cannot be reached; try again in 3 s";
    expect(failed).toMatchObject({
      status: "failed",
      statusMessage: message,
      error: { code: -32000, message, data: { retryAfterSeconds: 3 } },
    });
  });
});

describe("tasks/get, tasks/update, tasks/cancel", () => {
  it("check the extension first, then the id, then the task and its owner", async () => {
    const { server } = taskServer();
    const bare = await createTestClient(server);
    for (const method of ["tasks/get", "tasks/update", "tasks/cancel"]) {
      expect((await rpcError(bare.request(method, { taskId: "nope", inputResponses: {} }))).code).toBe(-32021);
    }
    const c = await client(server, { auth: { subject: "alice", scopes: [] } });
    const other = await client(server, { auth: { subject: "mallory", scopes: [] } });
    const { taskId } = await c.request("tools/call", { name: "slow" });
    for (const method of ["tasks/get", "tasks/update", "tasks/cancel"]) {
      expect((await rpcError(c.request(method, { taskId: 7, inputResponses: {} }))).code).toBe(-32602);
      const unknown = await rpcError(c.request(method, { taskId: "tasks-nonexistent", inputResponses: {} }));
      const theirs = await rpcError(other.request(method, { taskId, inputResponses: {} }));
      expect([theirs.code, theirs.message, theirs.data]).toEqual([unknown.code, unknown.message, unknown.data]);
      expect(unknown.code).toBe(-32602);
    }
    expect((await c.request("tasks/get", { taskId })).status).toBe("working");
  });

  it("tasks/cancel aborts the handler's signal, answers an empty ack, and a terminal task just acks", async () => {
    const { server } = taskServer();
    const c = await client(server);
    const { taskId } = await c.request("tools/call", { name: "slow" });
    const ack = await c.exchange("tasks/cancel", { taskId });
    expect(Object.keys(ack.result).filter((key) => key !== "_meta")).toEqual(["resultType"]);
    expect(ack.result.resultType).toBe("complete");
    const cancelled = await c.request("tasks/get", { taskId });
    expect(cancelled.status).toBe("cancelled");
    expect(await c.request("tasks/cancel", { taskId })).toMatchObject({ resultType: "complete" });
    expect((await c.request("tasks/get", { taskId })).status).toBe("cancelled");
  });

  it("ctx.elicit in a task asks through inputRequests, and tasks/update resumes it without replay", async () => {
    const { server, calls } = taskServer();
    const c = await client(server);
    const { taskId } = await c.request("tools/call", { name: "confirm" });
    const waiting = await until(
      () => c.request("tasks/get", { taskId }),
      (t) => t.status === "input_required",
    );
    expect(waiting.inputRequests).toEqual({
      "elicit-1": {
        method: "elicitation/create",
        params: expect.objectContaining({ message: "Sure?", requestedSchema: expect.any(Object) }),
      },
    });
    // An unknown key is ignored, its shape never checked.
    expect(
      await c.request("tasks/update", { taskId, inputResponses: { "unknown-key": { ignored: true } } }),
    ).toMatchObject({ resultType: "complete" });
    expect((await c.request("tasks/get", { taskId })).status).toBe("input_required");
    await c.request("tasks/update", {
      taskId,
      inputResponses: { "elicit-1": { action: "accept", content: { confirm: true } } },
    });
    const done = await until(
      () => c.request("tasks/get", { taskId }),
      (t) => t.status === "completed",
    );
    expect(done.result).toMatchObject({ content: [{ text: "confirmed true" }] });
    expect(calls.confirm).toBe(1);
  });

  it("parallel questions take partial answers: the task stays input_required until the last", async () => {
    const { server } = taskServer();
    const c = await client(server);
    const { taskId } = await c.request("tools/call", { name: "two" });
    const waiting = await until(
      () => c.request("tasks/get", { taskId }),
      (t) => Object.keys((t.inputRequests ?? {}) as object).length === 2,
    );
    const [first, second] = Object.keys(waiting.inputRequests as object) as [string, string];
    await c.request("tasks/update", {
      taskId,
      inputResponses: { [first]: { action: "accept", content: { name: "partial-1" } } },
    });
    const partial = await c.request("tasks/get", { taskId });
    expect(partial.status).toBe("input_required");
    expect(Object.keys(partial.inputRequests as object)).toEqual([second]);
    await c.request("tasks/update", {
      taskId,
      inputResponses: { [second]: { action: "accept", content: { confirm: true } } },
    });
    const done = await until(
      () => c.request("tasks/get", { taskId }),
      (t) => t.status === "completed",
    );
    expect(done.result).toMatchObject({ content: [{ text: "accept/accept" }] });
  });

  it("a task is kept its whole TTL, never purged early", async () => {
    let now = 1_000_000;
    const engine = createMemoryEngine({ now: () => now });
    const { server } = taskServer({ name: "ttl", version: "1", engine, tasks: { ttlMs: 60_000 } });
    const c = await client(server);
    const created = await c.request("tools/call", { name: "broken" });
    const { taskId } = created;
    // The record's createdAt is the runner's clock; the engine's clock is moved to the edge of the TTL.
    const createdAt = Date.parse(created.createdAt as string);
    now = createdAt + 5000;
    expect((await c.request("tasks/get", { taskId })).taskId).toBe(taskId);
    now = createdAt + 5000 + 1;
    expect((await rpcError(c.request("tasks/get", { taskId }))).code).toBe(-32602);
  });
});

describe("inside a task", () => {
  it("cancel aborts ctx.signal; ctx.log goes to the server's log, never the client", async () => {
    const logged: string[] = [];
    const aborted = deferred<boolean>();
    const server = createServer({ name: "inside", version: "1", logger: (entry) => logged.push(entry.message) });
    server.tool({
      name: "wait",
      description: "Waits for its cancellation",
      task: "required",
      handler: (_args, ctx) =>
        new Promise((resolve) => {
          ctx.log.info("started");
          ctx.signal.addEventListener("abort", () => {
            aborted.resolve(ctx.signal.aborted);
            resolve("late");
          });
        }),
    });
    const c = await client(server);
    const { taskId } = await c.request("tools/call", {
      name: "wait",
      _meta: { [`io.modelcontextprotocol/logLevel`]: "debug" },
    });
    await c.request("tasks/cancel", { taskId });
    expect(await aborted.promise).toBe(true);
    expect((await c.request("tasks/get", { taskId })).status).toBe("cancelled");
    expect(logged.some((line) => line.includes("started"))).toBe(true);
    expect(c.notifications.filter((n) => n.method === "notifications/message")).toEqual([]);
  });

  it("detach manual: input rounds as a request, then ctx.detach() answers with the task, which completes", async () => {
    const server = createServer({ name: "detach", version: "1" });
    server.tool({
      name: "compose",
      description: "Asks, then detaches",
      task: { support: "required", detach: "manual" },
      handler: async (_args, ctx) => {
        const who = await ctx.elicit({ message: "Name?", schema: { name: z.string() } });
        await ctx.detach();
        return `Hello ${who.action === "accept" ? who.content.name : "?"} from ${ctx.task?.id === undefined ? "a request" : "a task"}`;
      },
    });
    const c = await client(server, { elicit: () => ({ action: "accept", content: { name: "Alice" } }) });
    const created = await c.exchange("tools/call", { name: "compose" });
    expect(created.rounds).toBe(1);
    expect(created.result).toMatchObject({ resultType: "task", status: "working" });
    expect(created.result).not.toHaveProperty("requestState");
    const done = await until(
      () => c.request("tasks/get", { taskId: created.result.taskId }),
      (t) => t.status === "completed",
    );
    expect(done.result).toMatchObject({ content: [{ text: "Hello Alice from a task" }] });
  });
});
