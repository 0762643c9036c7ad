import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import type { LogEntry } from "../context/logger.js";
import { createServer } from "../index.js";
import { createTestClient } from "./client.js";
import { aborted, deferred, sent } from "./fixtures.test-util.js";
import { type TestDetailedTask, taskHandle } from "./tasks.js";

// The test client and the tasks extension: a task handler unit-tested without a transport (its progress, one
// question, its cancellation), and what the client puts on the wire for it.

const TASKS = "io.modelcontextprotocol/tasks";

// The newcomer's slow report: progress, one confirmation question, a log line, then the report.
function reports() {
  const logged: LogEntry[] = [];
  const gate = deferred();
  const cancelled = deferred<unknown>();
  const server = createServer({ name: "reports", version: "1.0.0", logger: (entry) => logged.push(entry) });
  server.tool({
    name: "report",
    description: "Build the month's report",
    input: { month: z.string() },
    task: "optional",
    handler: async ({ month }, ctx) => {
      ctx.progress(1, 3, "Gathering figures");
      await gate.promise;
      const answer = await ctx.elicit({ message: "Include drafts?", schema: { drafts: z.boolean() } });
      ctx.progress(2, 3, "Writing");
      ctx.log.info("report written");
      return `Report for ${month}${answer.action === "accept" && answer.content.drafts ? " with drafts" : ""}`;
    },
  });
  server.tool({
    name: "forever",
    description: "Runs until cancelled",
    task: "optional",
    handler: async (_args, ctx) => {
      cancelled.resolve(await aborted(ctx));
      return "never seen";
    },
  });
  return { server, logged, gate, cancelled };
}

// The params of the n-th `method` request the client sent.
function paramsSent(
  client: Parameters<typeof sent>[0],
  method: string,
  n = 0,
): Record<string, Record<string, unknown>> {
  const record = sent(client, method)[n];
  if (!record) throw new Error(`the client sent no ${method} #${n}`);
  return (record.message as unknown as { params: Record<string, Record<string, unknown>> }).params;
}

const acceptDrafts = () => ({ action: "accept", content: { drafts: true } });

describe("the test client's tasks", () => {
  it("runs a task to its end: progress as statusMessage, one question answered by its elicit handler", async () => {
    const { server, logged, gate } = reports();
    const client = await createTestClient(server, { extensions: { tasks: true }, elicit: acceptDrafts });
    const task = await client.task("report", { month: "2026-11" });
    expect(task.created).toMatchObject({ resultType: "task", taskId: task.taskId, status: "working" });
    expect(task.created).not.toHaveProperty("result");

    const seen: TestDetailedTask[] = [];
    const done = await task.wait({
      pollIntervalMs: 5,
      onStatus: (state) => {
        seen.push(state);
        if (state.statusMessage === "Gathering figures") gate.resolve();
      },
    });
    expect(done).toMatchObject({
      resultType: "complete",
      taskId: task.taskId,
      status: "completed",
      result: { content: [{ type: "text", text: "Report for 2026-11 with drafts" }] },
    });
    const asking = seen.find((state) => state.status === "input_required");
    expect(Object.values(asking?.inputRequests ?? {})).toEqual([
      { method: "elicitation/create", params: expect.objectContaining({ message: "Include drafts?" }) },
    ]);

    // The wire: the call declared the extension; the question went back with tasks/update, under its key.
    const call = paramsSent(client, "tools/call");
    expect(call._meta?.["io.modelcontextprotocol/clientCapabilities"]).toMatchObject({
      extensions: { [TASKS]: {} },
    });
    const updates = sent(client, "tasks/update").map((record) => (record.message as { params: unknown }).params);
    const key = Object.keys(asking?.inputRequests ?? {})[0] as string;
    expect(updates).toEqual([
      expect.objectContaining({ taskId: task.taskId, inputResponses: { [key]: acceptDrafts() } }),
    ]);
    expect(sent(client, "tasks/get").length).toBeGreaterThan(0);
    // Progress and logs never reach the client for a task: the log went to the server's own.
    const methods = client.notifications.map((notification) => notification.method);
    expect(methods).not.toContain("notifications/progress");
    expect(methods).not.toContain("notifications/message");
    expect(logged).toContainEqual(expect.objectContaining({ level: "info" }));
  });

  it("answers with `answer` when given, and update() answers by hand", async () => {
    const { server, gate } = reports();
    gate.resolve();
    const client = await createTestClient(server, { extensions: { tasks: true }, elicit: acceptDrafts });
    const task = await client.task("report", { month: "2026-12" });
    const done = await task.wait({ pollIntervalMs: 5, answer: () => ({ action: "decline" }) });
    expect(done.result?.content).toEqual([{ type: "text", text: "Report for 2026-12" }]);

    const second = await client.task("report", { month: "2027-01" });
    let open: TestDetailedTask;
    do open = await second.get();
    while (open.status !== "input_required");
    const [key] = Object.keys(open.inputRequests ?? {});
    const ack = await second.update({ [key as string]: acceptDrafts() });
    expect(ack).toMatchObject({ resultType: "complete" });
    expect(Object.keys(ack).filter((field) => field !== "_meta")).toEqual(["resultType"]);
    expect((await second.wait({ pollIntervalMs: 5 })).result?.content).toEqual([
      { type: "text", text: "Report for 2027-01 with drafts" },
    ]);
  });

  it("cancel() aborts the handler's ctx.signal and the task ends cancelled", async () => {
    const { server, cancelled } = reports();
    const client = await createTestClient(server, { extensions: { tasks: true } });
    const task = await client.task("forever");
    const ack = await task.cancel();
    expect(Object.keys(ack).filter((field) => field !== "_meta")).toEqual(["resultType"]);
    await cancelled.promise;
    const done = await task.wait({ pollIntervalMs: 5 });
    expect(done.status).toBe("cancelled");
    expect(done).not.toHaveProperty("result");
    expect(sent(client, "tasks/cancel")).toHaveLength(1);
  });

  it("listen({ taskIds }) asks for the task's notifications on the wire", async () => {
    const { server, gate } = reports();
    gate.resolve();
    const client = await createTestClient(server, { extensions: { tasks: true }, elicit: acceptDrafts });
    const task = await client.task("report", { month: "2026-11" });
    const stream = await client.listen({ taskIds: [task.taskId, "someone-elses"] });
    expect(stream.acknowledged).toEqual({ taskIds: [task.taskId] });
    await task.wait({ pollIntervalMs: 5 });
    const notification = await stream.next();
    expect(notification.method).toBe("notifications/tasks");
    expect(notification.params).toMatchObject({ taskId: task.taskId });
    await stream.close();
    const listened = paramsSent(client, "subscriptions/listen");
    expect(listened.notifications).toEqual({ taskIds: [task.taskId, "someone-elses"] });
  });

  it("task() says why when the call was answered without a task", async () => {
    const { server, gate } = reports();
    gate.resolve();
    // No extension declared: an optional task tool runs synchronously.
    const client = await createTestClient(server, { elicit: acceptDrafts });
    await expect(client.task("report", { month: "2026-11" })).rejects.toThrow(
      /answered without a task.*extensions: \{ tasks: true \}/,
    );
    const call = paramsSent(client, "tools/call");
    expect(call._meta?.["io.modelcontextprotocol/clientCapabilities"]).not.toHaveProperty("extensions");
  });

  it("declares the extension on 2026-07-28 only, beside the capabilities given", async () => {
    const { server } = reports();
    const stateless = await createTestClient(server, {
      extensions: { tasks: true },
      capabilities: { extensions: { "example.com/other": { x: 1 } } },
    });
    await stateless.listTools();
    const list = paramsSent(stateless, "tools/list");
    expect(list._meta?.["io.modelcontextprotocol/clientCapabilities"]).toEqual({
      extensions: { "example.com/other": { x: 1 }, [TASKS]: {} },
    });
    const handshake = await createTestClient(server, { protocolVersion: "2025-11-25", extensions: { tasks: true } });
    const init = paramsSent(handshake, "initialize");
    expect(init.capabilities).toEqual({});
  });
});

describe("a task handle's wait()", () => {
  // A server scripted as the answers of tasks/get in turn, the requests it was sent recorded.
  function scripted(states: Partial<TestDetailedTask>[]) {
    const calls: { method: string; params: Record<string, unknown> }[] = [];
    let at = 0;
    const port = {
      request: async (method: string, params: Record<string, unknown>) => {
        calls.push({ method, params });
        if (method !== "tasks/get") return { resultType: "complete" };
        const state = states[Math.min(at++, states.length - 1)];
        return { resultType: "complete", taskId: "t", pollIntervalMs: 0, ...state };
      },
      answer: async (method: string) => ({ action: "accept", content: { from: method } }),
    };
    const handle = taskHandle(port, "tool", { resultType: "task", taskId: "t", status: "working" });
    return { calls, handle };
  }

  it("answers each key once, even while a poll still shows it open, and tells each change once", async () => {
    const ask = { method: "elicitation/create", params: { message: "?" } };
    const { calls, handle } = scripted([
      { status: "working" },
      { status: "working" },
      { status: "input_required", inputRequests: { "elicit-1": ask } },
      { status: "input_required", inputRequests: { "elicit-1": ask } },
      { status: "working", statusMessage: "2/3" },
      { status: "completed", result: { content: [] } },
    ]);
    const seen: string[] = [];
    const done = await handle.wait({ onStatus: (task) => seen.push(`${task.status} ${task.statusMessage ?? ""}`) });
    expect(done.status).toBe("completed");
    expect(seen).toEqual(["working ", "input_required ", "working 2/3", "completed "]);
    expect(calls.filter((call) => call.method === "tasks/update")).toEqual([
      {
        method: "tasks/update",
        params: { taskId: "t", inputResponses: { "elicit-1": { action: "accept", content: { from: ask.method } } } },
      },
    ]);
  });

  it("polls at the task's pollIntervalMs with setTimeout (fake timers drive it), and stops when aborted", async () => {
    vi.useFakeTimers();
    try {
      const { calls, handle } = scripted([{ status: "working", pollIntervalMs: 1000 }]);
      const stop = new AbortController();
      const waiting = handle.wait({ signal: stop.signal });
      await vi.advanceTimersByTimeAsync(0);
      expect(calls).toHaveLength(1);
      await vi.advanceTimersByTimeAsync(999);
      expect(calls).toHaveLength(1);
      await vi.advanceTimersByTimeAsync(1);
      expect(calls).toHaveLength(2);
      stop.abort(new Error("enough"));
      await expect(waiting).rejects.toThrow("enough");
      expect(calls.every((call) => call.method === "tasks/get")).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });
});
