import { spawn } from "node:child_process";
import { createServer, LATEST_STATELESS_VERSION } from "@toolsmith/core";
import type { Engine } from "@toolsmith/core/engine";
import { MetaKey } from "@toolsmith/core/transport";
import { createRedisEngine } from "@toolsmith/redis";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { end, track } from "../../../../scripts/child-processes.js";
import { until, within } from "../../../../scripts/wait.js";
import { createHttpHandler, type HttpHandler } from "../doors/http-handler.js";
import { H, headers2026, initialize, post } from "../exchange/requests.test-util.js";
import { sharedRedis } from "./shared-redis.test-util.js";

// What a client said that the engine acknowledged reaches the handler on another process even when that process's
// subscriber connection was cut (CLIENT KILL TYPE pubsub) and stayed away until after the answer: a task's answer, a
// task's cancellation, a handshake-era elicitation's answer. The channel is only a wake-up; the answer is kept.

const TASKS = "io.modelcontextprotocol/tasks";
const META = {
  [MetaKey.protocolVersion]: LATEST_STATELESS_VERSION,
  [MetaKey.clientCapabilities]: { elicitation: {}, extensions: { [TASKS]: {} } },
};

const { redis, engines, handlers } = sharedRedis();
// redis-cli, one connection for the whole file: it must outlast what it refuses to others.
let admin: ReturnType<typeof spawn> | undefined;
let said = "";
let heard: () => void = () => {};
afterAll(async () => {
  if (admin) await end(admin);
});

interface Process {
  readonly handle: HttpHandler;
  readonly engine: Engine;
}

// What the tools saw, per test.
let effects = 0;
let aborted: () => void = () => {};
let gate: Promise<void> = Promise.resolve();
let ended: () => void = () => {};
let began: () => void = () => {};

function process_(namespace: string): Process {
  const engine = createRedisEngine({ url: redis.url, namespace, commandTimeoutMs: 1000 });
  engines.push(engine);
  const server = createServer({ name: "durable", version: "1", engine, logger: () => {} });
  server.tool({
    name: "confirm",
    description: "Asks, then reports",
    task: "optional",
    handler: async (_args, ctx) => {
      const answer = await ctx.elicit({ message: "Sure?", schema: { ok: z.boolean() } });
      return answer.action === "accept" && answer.content.ok ? "confirmed" : "declined";
    },
  });
  server.tool({
    name: "effect",
    description: "Acts once the gate opens, unless cancelled",
    task: "optional",
    handler: async (_args, ctx) => {
      ctx.signal.addEventListener("abort", () => aborted());
      began();
      await gate;
      if (!ctx.signal.aborted) effects++;
      ended();
      return "acted";
    },
  });
  const handle = createHttpHandler(server);
  handlers.push(handle);
  return { handle, engine };
}

/** A command to the test's own redis-server, on redis-cli's one connection; its reply as text. */
async function cli(...args: string[]): Promise<string> {
  if (admin === undefined) {
    admin = track(spawn("redis-cli", ["-u", redis.url], { stdio: ["pipe", "pipe", "ignore"] }));
    admin.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
      said += chunk;
      heard();
    });
  }
  const mark = `done-${crypto.randomUUID()}`;
  said = "";
  admin.stdin?.write(`${args.join(" ")}\nECHO ${mark}\n`);
  await within(
    new Promise<void>((resolve) => {
      heard = () => {
        if (said.includes(mark)) resolve();
      };
      heard();
    }),
    `redis-cli's answer to ${args.join(" ")}`,
  );
  return said.slice(0, said.indexOf(mark)).trim();
}

/**
 * Cut every subscriber connection and keep it cut (no new connection is accepted) until the returned function runs:
 * whatever is published meanwhile reaches no process.
 */
async function cutSubscribers(): Promise<() => Promise<void>> {
  const max = (await cli("CONFIG", "GET", "maxclients")).split("\n")[1] as string;
  const subscribers = (await cli("CLIENT", "LIST", "TYPE", "pubsub")).split("\n").filter((l) => l !== "").length;
  const connected = Number(/connected_clients:(\d+)/.exec(await cli("INFO", "clients"))?.[1]);
  expect(subscribers).toBeGreaterThan(0);
  // Less the subscribers and redis-cli's own connection: theirs cannot come back.
  expect(await cli("CONFIG", "SET", "maxclients", String(connected - subscribers - 1))).toBe("OK");
  await cli("CLIENT", "KILL", "TYPE", "pubsub");
  expect(await cli("CLIENT", "LIST", "TYPE", "pubsub")).toBe("");
  return async () => {
    await cli("CONFIG", "SET", "maxclients", max);
  };
}

let ids = 0;
async function result(at: Process, method: string, params: Record<string, unknown>) {
  const name = (method === "tools/call" ? params.name : params.taskId) as string;
  const response = await at.handle(
    post({ jsonrpc: "2.0", id: ++ids, method, params: { ...params, _meta: META } }, headers2026(method, name, {})),
  );
  const reply = JSON.parse(await response.text()) as { result?: Record<string, unknown> };
  if (reply.result === undefined) throw new Error(`${method} failed`);
  return reply.result;
}
function whenTask(at: Process, taskId: string, holds: (task: Record<string, unknown>) => boolean, what: string) {
  return until(async () => {
    const task = await result(at, "tasks/get", { taskId });
    return holds(task) ? task : undefined;
  }, what);
}

/** The `effect` tool held at its gate: open it, and hear its handler aborted and ended. */
function armEffect(): { open: () => void; wasAborted: Promise<void>; wasEnded: Promise<void> } {
  let open!: () => void;
  gate = new Promise((resolve) => {
    open = resolve;
  });
  const wasAborted = new Promise<void>((resolve) => {
    aborted = resolve;
  });
  const wasEnded = new Promise<void>((resolve) => {
    ended = resolve;
  });
  effects = 0;
  return { open, wasAborted, wasEnded };
}

describe("answers that survive a cut subscriber connection", () => {
  it("a task's answer given on B while A's subscriber is cut: A's handler resumes and the task completes", async () => {
    const namespace = `durable-${crypto.randomUUID()}`;
    const [a, b] = [process_(namespace), process_(namespace)];
    const created = await result(a, "tools/call", { name: "confirm" });
    const taskId = created.taskId as string;
    const asking = await whenTask(b, taskId, (task) => task.status === "input_required", "the question");
    const [key] = Object.keys(asking.inputRequests as object);
    const restore = await cutSubscribers();
    try {
      const inputResponses = { [key as string]: { action: "accept", content: { ok: true } } };
      expect(await result(b, "tasks/update", { taskId, inputResponses })).toMatchObject({ resultType: "complete" });
    } finally {
      await restore();
    }
    const done = await whenTask(b, taskId, (task) => task.status === "completed", "the task to complete on A");
    expect(JSON.stringify(done.result)).toContain("confirmed");
  });

  it("a task cancelled on B while A's subscriber is cut: A's handler is aborted and does not act", async () => {
    const namespace = `durable-${crypto.randomUUID()}`;
    const [a, b] = [process_(namespace), process_(namespace)];
    const { open, wasAborted, wasEnded } = armEffect();
    const taskId = (await result(a, "tools/call", { name: "effect" })).taskId as string;
    const restore = await cutSubscribers();
    try {
      await result(b, "tasks/cancel", { taskId });
    } finally {
      await restore();
    }
    await within(wasAborted, "A's handler to be aborted by the cancellation it missed on the bus");
    open();
    await within(wasEnded, "the handler to end");
    expect(effects).toBe(0);
    expect(await result(b, "tasks/get", { taskId })).toMatchObject({ status: "cancelled" });
  });

  it("a handshake-era call cancelled on B while A's subscriber is cut: A's handler is aborted and does not act", async () => {
    const namespace = `durable-${crypto.randomUUID()}`;
    const [a, b] = [process_(namespace), process_(namespace)];
    const { open, wasAborted, wasEnded } = armEffect();
    const opened = await a.handle(post(initialize(1, "2025-11-25", {}), H));
    const headers = { ...H, "mcp-session-id": opened.headers.get("mcp-session-id") as string };
    await a.handle(post({ jsonrpc: "2.0", method: "notifications/initialized" }, headers));
    const running = new Promise<void>((resolve) => {
      began = resolve;
    });
    const call = a.handle(
      post({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "effect", arguments: {} } }, headers),
    );
    await within(running, "the call's handler to run on A");
    expect((await b.handle(post({ jsonrpc: "2.0", id: 3, method: "ping" }, headers))).status).toBe(200);
    const restore = await cutSubscribers();
    try {
      const cancel = { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 2, reason: "no" } };
      expect((await b.handle(post(cancel, headers))).status).toBe(202);
    } finally {
      await restore();
    }
    await within(wasAborted, "A's handler to be aborted by the cancellation it missed on the bus");
    open();
    await within(wasEnded, "the handler to end");
    expect(effects).toBe(0);
    await call;
  });

  it("a handshake-era elicitation answered on B while A's subscriber is cut: A's call completes", async () => {
    const namespace = `durable-${crypto.randomUUID()}`;
    const [a, b] = [process_(namespace), process_(namespace)];
    const opened = await a.handle(post(initialize(1, "2025-11-25", { elicitation: {} }), H));
    const headers = { ...H, "mcp-session-id": opened.headers.get("mcp-session-id") as string };
    await a.handle(post({ jsonrpc: "2.0", method: "notifications/initialized" }, headers));
    const asked = await a.handle(
      post({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "confirm", arguments: {} } }, headers),
    );
    const reader = (asked.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = "";
    const readUntil = async (needle: string) => {
      while (!text.includes(needle)) {
        const { value, done } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
      }
    };
    await within(readUntil("elicitation/create"), "the question on A's stream");
    const { id } = JSON.parse(/data: (\{.*"elicitation\/create".*)/.exec(text)?.[1] ?? "{}") as { id: string };
    // B serves the session before the cut (a process that never saw it follows its channel first).
    expect((await b.handle(post({ jsonrpc: "2.0", id: 3, method: "ping" }, headers))).status).toBe(200);
    const restore = await cutSubscribers();
    try {
      const answer = { jsonrpc: "2.0", id, result: { action: "accept", content: { ok: true } } };
      expect((await b.handle(post(answer, headers))).status).toBe(202);
    } finally {
      await restore();
    }
    await within(readUntil('"id":2,'), "the call's result on A's stream once A has Redis again");
    await reader.cancel();
    expect(text).toContain("confirmed");
  });
});
