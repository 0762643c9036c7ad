import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { createServer, LATEST_STATELESS_VERSION } from "@toolsmith/core";
import type { Engine } from "@toolsmith/core/engine";
import { MetaKey } from "@toolsmith/core/transport";
import { createRedisEngine } from "@toolsmith/redis";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { exited, track } from "../../../../scripts/child-processes.js";
import { until, within } from "../../../../scripts/wait.js";
import { createHttpHandler, type HttpHandler } from "../doors/http-handler.js";
import { headers2026, post } from "../exchange/requests.test-util.js";
import { sharedRedis } from "./shared-redis.test-util.js";

// Tasks served by three processes of one server (three handlers on three Redis engines sharing one namespace): a
// task runs where it was made and is read, answered and cancelled through any process; a killed process's task fails.

const TASKS = "io.modelcontextprotocol/tasks";
const META = {
  [MetaKey.protocolVersion]: LATEST_STATELESS_VERSION,
  [MetaKey.clientCapabilities]: { elicitation: {}, extensions: { [TASKS]: {} } },
};
const TOKENS: Record<string, string> = { "Bearer ada": "ada", "Bearer bob": "bob" };
const CHILD = fileURLToPath(new URL("../../test/task-kept-running.mjs", import.meta.url));
const BUILT = fileURLToPath(new URL("../../dist/index.js", import.meta.url));
const LEASE_MS = 2000;
/** An ack: complete, and nothing of a task. */
function expectAck(ack: Record<string, unknown>): void {
  expect(ack.resultType).toBe("complete");
  for (const key of ["taskId", "status", "result", "error", "inputRequests"]) expect(ack).not.toHaveProperty(key);
}

const { redis, engines, handlers } = sharedRedis();

interface Process {
  readonly handle: HttpHandler;
  readonly engine: Engine;
  /** How often each tool's handler started on this process. */
  readonly started: Record<string, number>;
  readonly aborted: Promise<void>;
}

function process_(namespace: string): Process {
  const engine = createRedisEngine({ url: redis.url, namespace, leaseMs: LEASE_MS });
  engines.push(engine);
  const server = createServer({ name: "tasks-across", version: "1", engine });
  const started: Record<string, number> = { confirm: 0, slow: 0 };
  let abort!: () => void;
  const aborted = new Promise<void>((resolve) => {
    abort = resolve;
  });
  server.tool({
    name: "confirm",
    description: "Asks, then reports",
    task: "optional",
    handler: async (_args, ctx) => {
      started.confirm = (started.confirm ?? 0) + 1;
      const answer = await ctx.elicit({ message: "Sure?", schema: { ok: z.boolean() } });
      return answer.action === "accept" && answer.content.ok ? "confirmed" : "declined";
    },
  });
  server.tool({
    name: "slow",
    description: "Runs until cancelled",
    task: "optional",
    handler: (_args, ctx) => {
      started.slow = (started.slow ?? 0) + 1;
      return new Promise<string>((resolve) =>
        ctx.signal.addEventListener("abort", () => {
          abort();
          resolve("stopped");
        }),
      );
    },
  });
  server.tool({
    name: "traced",
    description: "Asks, then says the trace it sees",
    task: "optional",
    handler: async (_args, ctx) => {
      await ctx.elicit({ message: "Go?", schema: { ok: z.boolean() } });
      return ctx.trace?.traceparent ?? "none";
    },
  });
  server.tool({
    name: "brief",
    description: "Done at once, kept briefly",
    task: { support: "optional", ttlMs: 500 },
    handler: () => "done",
  });
  const handle = createHttpHandler(server, {
    authenticate: (request) => {
      const token = request.headers.get("authorization") ?? "";
      const subject = TOKENS[token];
      return subject === undefined ? undefined : { subject, scopes: [], token };
    },
  });
  handlers.push(handle);
  return { handle, engine, started, aborted };
}

function cluster(count = 3): Process[] {
  const namespace = `tasks-across-${crypto.randomUUID()}`;
  return Array.from({ length: count }, () => process_(namespace));
}

let ids = 0;
/** A 2026 request of `method` by `who` on `at`; its response (status and body text). */
async function rpc(at: Process, method: string, params: Record<string, unknown>, who = "ada", id = ++ids) {
  const name = (method === "tools/call" ? params.name : params.taskId) as string;
  const meta = { ...META, ...(params._meta as object | undefined) };
  const response = await at.handle(
    post(
      { jsonrpc: "2.0", id, method, params: { ...params, _meta: meta } },
      headers2026(method, typeof name === "string" ? name : undefined, { authorization: `Bearer ${who}` }),
    ),
  );
  return { status: response.status, text: await response.text() };
}
async function result(at: Process, method: string, params: Record<string, unknown>, who = "ada") {
  const { text } = await rpc(at, method, params, who);
  const reply = JSON.parse(text) as { result?: Record<string, unknown>; error?: unknown };
  if (reply.result === undefined) throw new Error(`${method} failed: ${text}`);
  return reply.result;
}
/** Polls tasks/get on `at` until the task holds. */
function whenTask(at: Process, taskId: string, holds: (task: Record<string, unknown>) => boolean, what: string) {
  return until(async () => {
    const task = await result(at, "tasks/get", { taskId });
    return holds(task) ? task : undefined;
  }, what);
}

describe("tasks across three processes on Redis", () => {
  it("made on A, read on B and C; answered on B, A's handler resumes (no replay) and completes", async () => {
    const [a, b, c] = cluster();
    const created = await result(a!, "tools/call", { name: "confirm" });
    const taskId = created.taskId as string;
    expect(created).toMatchObject({ resultType: "task", status: "working" });
    for (const at of [b!, c!]) expect((await result(at, "tasks/get", { taskId })).taskId).toBe(taskId);
    const asking = await whenTask(c!, taskId, (task) => task.status === "input_required", "the question");
    const [key] = Object.keys(asking.inputRequests as object);
    const answers = { [key!]: { action: "accept", content: { ok: true } } };
    expectAck(await result(b!, "tasks/update", { taskId, inputResponses: answers }));
    const done = await whenTask(c!, taskId, (task) => task.status === "completed", "the outcome");
    expect(done.result).toMatchObject({ content: [{ type: "text", text: "confirmed" }] });
    expect([a!.started.confirm, b!.started.confirm, c!.started.confirm]).toEqual([1, 0, 0]);
  });

  it("its handler's ctx.trace is the creating call's, though answered and read with other traces elsewhere", async () => {
    const [a, b, c] = cluster();
    const trace = (span: string) => ({ traceparent: `00-0af7651916cd43dd8448eb211c80319c-${span}-01` });
    const created = await result(a!, "tools/call", { name: "traced", _meta: trace("b7ad6b7169203331") });
    const taskId = created.taskId as string;
    const asking = await whenTask(c!, taskId, (task) => task.status === "input_required", "the question");
    const [key] = Object.keys(asking.inputRequests as object);
    const answers = { [key!]: { action: "accept", content: { ok: true } } };
    expectAck(await result(b!, "tasks/update", { taskId, inputResponses: answers, _meta: trace("00f067aa0ba902b7") }));
    const done = await whenTask(c!, taskId, (task) => task.status === "completed", "the outcome");
    expect(done.result).toMatchObject({ content: [{ text: trace("b7ad6b7169203331").traceparent }] });
  });

  it("tasks/cancel posted to C aborts A's handler's ctx.signal; the task stays cancelled", async () => {
    const [a, b, c] = cluster();
    const taskId = (await result(a!, "tools/call", { name: "slow" })).taskId as string;
    expectAck(await result(c!, "tasks/cancel", { taskId }));
    await within(a!.aborted, "A's handler to hear the cancellation");
    expect((await result(b!, "tasks/get", { taskId })).status).toBe("cancelled");
    expect([a!.started.slow, b!.started.slow, c!.started.slow]).toEqual([1, 0, 0]);
  });

  it("another principal is answered exactly as for an unknown id, on get, update and cancel, on every process", async () => {
    const processes = cluster();
    const taskId = (await result(processes[0]!, "tools/call", { name: "slow" })).taskId as string;
    const unknown = crypto.randomUUID();
    for (const at of processes) {
      for (const [method, extra] of [
        ["tasks/get", {}],
        ["tasks/update", { inputResponses: {} }],
        ["tasks/cancel", {}],
      ] as const) {
        const theirs = await rpc(at, method, { taskId, ...extra }, "bob", 99);
        const none = await rpc(at, method, { taskId: unknown, ...extra }, "bob", 99);
        expect(theirs.status).toBe(none.status);
        expect(theirs.text).toBe(none.text);
        expect(JSON.parse(theirs.text)).toMatchObject({ error: { code: -32602 } });
      }
    }
    // Bob's cancel did nothing: the task still runs for its owner.
    expect((await result(processes[1]!, "tasks/get", { taskId })).status).toBe("working");
    await result(processes[2]!, "tasks/cancel", { taskId });
  });

  it("a task is kept its whole TTL (never purged early), then unknown on every process", async () => {
    const processes = cluster();
    const created = await result(processes[0]!, "tools/call", { name: "brief" });
    const taskId = created.taskId as string;
    const expires = Date.parse(created.createdAt as string) + (created.ttlMs as number);
    for (const at of processes) {
      const gone = await until(async () => {
        const { text } = await rpc(at, "tasks/get", { taskId });
        const reply = JSON.parse(text) as { result?: Record<string, unknown> };
        if (reply.result !== undefined) return undefined;
        return { at: Date.now(), text };
      }, "the task to expire");
      expect(gone.at).toBeGreaterThanOrEqual(expires);
      expect(JSON.parse(gone.text)).toMatchObject({ error: { code: -32602 } });
    }
  });
});

it("a process killed (SIGKILL) mid-task: after its lease a survivor shows it failed, saying why, once", async () => {
  if (!existsSync(BUILT)) throw new Error(`${BUILT} is not built: npx -y pnpm@12.4.2 run build`);
  const namespace = `tasks-killed-${crypto.randomUUID()}`;
  const survivors = [process_(namespace), process_(namespace)];
  // Survivors start their engines (and watch for orphans) on their first request.
  for (const at of survivors) await rpc(at, "tasks/get", { taskId: "none" });
  const child = track(spawn(process.execPath, [CHILD, redis.url, namespace, String(LEASE_MS)], { stdio: "pipe" }));
  let said = "";
  const taskId = await within(
    new Promise<string>((resolve, reject) => {
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
        said += chunk;
        const found = /task (\S+)\n/.exec(said)?.[1];
        if (found) resolve(found);
      });
      child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
        said += chunk;
      });
      child.once("exit", (code) => reject(new Error(`the child exited (${code}) before its task: ${said}`)));
    }),
    "the child to start its task",
  );
  const changes: string[] = [];
  const unfollow = await survivors[0]!.engine.followTask(taskId, (signal) => {
    if (signal.type === "changed") changes.push(signal.task.status);
  });
  const read = (at: Process) => rpc(at, "tasks/get", { taskId });
  expect(JSON.parse((await read(survivors[1]!)).text).result.status).toBe("working");
  child.kill("SIGKILL");
  await exited(child, "the killed child's exit");
  const failed = await until(async () => {
    const task = JSON.parse((await read(survivors[1]!)).text).result as Record<string, unknown>;
    return task.status === "working" ? undefined : task;
  }, "the orphaned task to fail");
  expect(failed).toMatchObject({
    status: "failed",
    error: { code: -32603, message: expect.stringMatching(/stopped/) },
  });
  // The other survivor reads the same; and only one change was made to it.
  expect(JSON.parse((await read(survivors[0]!)).text).result).toEqual(failed);
  await until(() => changes.length >= 1, "the change to be heard");
  expect(changes).toEqual(["failed"]);
  await unfollow();
}, 60_000);
