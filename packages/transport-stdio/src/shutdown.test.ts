import { PassThrough } from "node:stream";
import { createServer, type ErrorReport, MetaKey, type Server } from "@toolsmith/core";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { WAIT_MS } from "../../../scripts/wait.js";
import { type StdioOptions, serveStdio } from "./index.js";

const META = { [MetaKey.protocolVersion]: "2026-07-28", [MetaKey.clientCapabilities]: {} };

function call(id: number, name: string, args: Record<string, unknown> = {}): string {
  return JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args, _meta: META } });
}

function cancel(requestId: number): string {
  return JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId, _meta: META } });
}

/** Serve in-process over PassThrough streams; replies are collected by id. */
function serve(server: Server, options: Partial<StdioOptions> = {}) {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let logged = "";
  stderr.setEncoding("utf8").on("data", (chunk: string) => {
    logged += chunk;
  });
  const replies = new Map<unknown, Record<string, unknown>>();
  const all: Record<string, unknown>[] = [];
  let buffer = "";
  stdout.setEncoding("utf8").on("data", (chunk: string) => {
    buffer += chunk;
    const lines = buffer.split("\n");
    buffer = lines.pop() ?? "";
    for (const text of lines) {
      const reply = JSON.parse(text) as Record<string, unknown>;
      replies.set(reply.id, reply);
      all.push(reply);
    }
  });
  const connection = serveStdio(server, { stdin, stdout, stderr, exitOnEnd: false, guardStdout: false, ...options });
  return {
    connection,
    stdin,
    replies,
    /** Every reply, in order (`replies` keeps the last one per id). */
    all,
    stderr: () => logged,
    write: (...lines: string[]) => stdin.write(`${lines.join("\n")}\n`),
    end: () => stdin.end(),
    until: async (done: () => boolean, ms = WAIT_MS) => {
      const start = Date.now();
      while (!done()) {
        if (Date.now() - start > ms) throw new Error(`gave up after ${ms / 1000} s waiting`);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    },
  };
}

function untilCancelled() {
  const server = createServer({ name: "l", version: "1" });
  server.tool({
    name: "wait",
    description: "runs until cancelled",
    handler: (_args, ctx) =>
      new Promise((resolve) => ctx.signal.addEventListener("abort", () => resolve("aborted"), { once: true })),
  });
  server.tool({
    name: "hang",
    description: "never finishes, ignores its signal",
    handler: () => new Promise(() => {}),
  });
  server.tool({ name: "quick", description: "answers at once", input: { n: z.number() }, handler: ({ n }) => n });
  return server;
}

describe("stdio lifecycle", () => {
  it("at the in-flight limit, a cancellation behind queued requests still gets through", async () => {
    const harness = serve(untilCancelled(), { maxInFlight: 2 });
    harness.write(call(1, "wait"), call(2, "wait"), call(3, "quick", { n: 3 }), cancel(1), cancel(2));
    await harness.until(() => harness.replies.has(3));
    expect(harness.replies.get(3)).toMatchObject({ result: { content: [{ text: "3" }] } });
    expect(harness.replies.has(1)).toBe(false);
    expect(harness.replies.has(2)).toBe(false);
    harness.end();
    await harness.connection.closed;
  });

  it("a request cancelled while it waits for a slot is dropped unanswered; a later one reusing its id is served", async () => {
    const harness = serve(untilCancelled(), { maxInFlight: 1 });
    harness.write(
      call(1, "wait"),
      call(2, "quick", { n: 2 }),
      cancel(2),
      call(2, "quick", { n: 22 }),
      call(3, "quick", { n: 3 }),
    );
    harness.write(cancel(1));
    await harness.until(() => harness.replies.has(3));
    harness.end();
    await harness.connection.closed;
    expect(harness.all.map((reply) => reply.id)).toEqual([2, 3]);
    expect(harness.replies.get(2)).toMatchObject({ result: { content: [{ text: "22" }] } });
  });

  it("past maxQueuedBytes a request is answered -32000 at once and reading goes on; every request gets one reply", async () => {
    const harness = serve(untilCancelled(), { maxInFlight: 1, maxQueuedBytes: 1000 });
    const all: unknown[] = [];
    harness.write(call(1, "wait"));
    for (let id = 2; id <= 40; id++) harness.write(call(id, "quick", { n: id }));
    // Refused requests are answered while the slot is still held: reading did not stop.
    await harness.until(() => [...harness.replies.values()].some((reply) => reply.error !== undefined));
    const refused = [...harness.replies.values()].find((reply) => reply.error !== undefined);
    expect(refused).toMatchObject({ error: { code: -32000, message: expect.stringContaining("Server busy") } });
    expect(harness.replies.has(2)).toBe(false);
    harness.write(cancel(1));
    for (let id = 2; id <= 40; id++) all.push(id);
    await harness.until(() => all.every((id) => harness.replies.has(id)));
    harness.end();
    await harness.connection.closed;
    const served = all.filter((id) => harness.replies.get(id)?.result !== undefined);
    const busy = all.filter((id) => (harness.replies.get(id)?.error as { code?: number } | undefined)?.code === -32000);
    // The first requests waited their turn and were served; the rest were refused, none left unanswered.
    expect(served.slice(0, 3)).toEqual([2, 3, 4]);
    expect(served.length + busy.length).toBe(all.length);
  });

  it("cancellations kept for waiting requests count toward maxQueuedBytes: a flood of them cannot grow memory", async () => {
    const harness = serve(untilCancelled(), { maxInFlight: 1, maxQueuedBytes: 2000 });
    harness.write(call(1, "wait"), call(2, "quick", { n: 2 }));
    // Cancellations of ids nothing has: each is kept while a request waits, until the budget is spent.
    harness.write(...Array.from({ length: 100 }, (_, i) => cancel(1000 + i)));
    harness.write(call(3, "quick", { n: 3 }), cancel(2));
    await harness.until(() => harness.replies.has(3));
    expect(harness.replies.get(3)).toMatchObject({ error: { code: -32000 } });
    // Past the budget the cancellation of 2 was not kept: 2 is served once the slot frees (a late cancel, answered).
    harness.write(cancel(1));
    await harness.until(() => harness.replies.has(2));
    expect(harness.replies.get(2)).toMatchObject({ result: { content: [{ text: "2" }] } });
    harness.end();
    await harness.connection.closed;
  });

  it("after stdin ends, a handler that ignores its abort does not keep the server alive, and is answered for", async () => {
    const harness = serve(untilCancelled(), { shutdownTimeoutMs: 20 });
    harness.write(call(1, "hang"), call(2, "quick", { n: 2 }));
    harness.end();
    await harness.connection.closed;
    expect(harness.replies.get(2)).toMatchObject({ result: { content: [{ text: "2" }] } });
    expect(harness.all.filter((reply) => reply.id === 1)).toEqual([
      {
        jsonrpc: "2.0",
        id: 1,
        error: {
          code: -32000,
          message: "Server shutting down: the request did not finish once aborted (its handler ignored ctx.signal)",
        },
      },
    ]);
  });

  it("at the shutdown timeout, requests still waiting for a slot are answered -32000, not started after the abort", async () => {
    const harness = serve(untilCancelled(), { shutdownTimeoutMs: 20, maxInFlight: 2 });
    harness.write(call(1, "wait"), call(2, "wait"), call(3, "quick", { n: 3 }), call(4, "wait"));
    harness.end();
    await harness.connection.closed;
    expect(harness.all.map((reply) => reply.id).sort()).toEqual([1, 2, 3, 4]);
    expect(harness.replies.get(1)).toMatchObject({ result: { content: [{ text: "aborted" }] } });
    for (const id of [3, 4]) {
      expect(harness.replies.get(id)).toEqual({
        jsonrpc: "2.0",
        id,
        error: {
          code: -32000,
          message:
            "Server shutting down: this request was still waiting for its turn 20 ms after the client's input ended",
        },
      });
    }
  });

  it("close() with a handler that ignores its abort still resolves, answering it and the requests waiting", async () => {
    const server = untilCancelled();
    let started!: () => void;
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    server.tool({ name: "deaf", description: "ignores its signal", handler: () => new Promise(() => started()) });
    const harness = serve(server, { maxInFlight: 1 });
    harness.write(call(1, "deaf"), call(2, "quick", { n: 2 }));
    await running;
    await harness.connection.close();
    expect(harness.all.map((reply) => [reply.id, (reply.error as { message?: string } | undefined)?.message])).toEqual([
      [2, "Server shutting down: the server was closed before this request's turn came"],
      [1, "Server shutting down: the request did not finish once aborted (its handler ignored ctx.signal)"],
    ]);
  });

  it("close() stops reading, aborts what runs, writes its replies, and resolves", async () => {
    const harness = serve(untilCancelled());
    harness.write(call(1, "wait"));
    await new Promise((resolve) => setTimeout(resolve, 20));
    await harness.connection.close();
    expect(harness.replies.get(1)).toMatchObject({ result: { content: [{ text: "aborted" }] } });
    harness.write(call(2, "quick", { n: 2 }));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(harness.replies.has(2)).toBe(false);
  });

  it("keeps the server's own error hook, and logs to stderr only when there is none", async () => {
    const seen: ErrorReport[] = [];
    const broken = () => {
      const server = createServer({ name: "e", version: "1" });
      server.tool({
        name: "boom",
        description: "throws",
        handler: () => {
          throw new TypeError("boom");
        },
      });
      return server;
    };
    const hooked = serve(broken().onError((_error, where) => seen.push(where)));
    hooked.write(call(1, "boom"));
    hooked.end();
    await hooked.connection.closed;
    expect(seen).toEqual([{ method: "tools/call", requestId: 1, tool: "boom" }]);
    expect(hooked.stderr()).toBe("");

    const plain = serve(broken());
    plain.write(call(1, "boom"));
    plain.end();
    await plain.connection.closed;
    expect(plain.stderr()).toContain("[toolsmith] tool boom (id 1) failed: TypeError: boom");
  });

  it("a tap that throws is logged, and serving goes on", async () => {
    const harness = serve(untilCancelled(), {
      tap: () => {
        throw new Error("tap broke");
      },
    });
    harness.write(call(1, "quick", { n: 1 }));
    harness.end();
    await harness.connection.closed;
    expect(harness.replies.get(1)).toMatchObject({ result: { content: [{ text: "1" }] } });
    expect(harness.stderr()).toContain("tap broke");
  });

  it("an oversized notification gets no reply; an oversized request gets one with its id", async () => {
    const harness = serve(untilCancelled(), { maxLineBytes: 1024 });
    const padding = "x".repeat(2048);
    harness.write(
      JSON.stringify({ jsonrpc: "2.0", method: "notifications/progress", params: { padding } }),
      JSON.stringify({ jsonrpc: "2.0", id: 5, method: "tools/call", params: { padding } }),
    );
    harness.end();
    await harness.connection.closed;
    expect([...harness.replies.keys()]).toEqual([5]);
    expect(harness.replies.get(5)).toMatchObject({ error: { code: -32600 } });
  });

  it("a stdin error ends the connection like an end of input", async () => {
    const harness = serve(untilCancelled());
    harness.write(call(1, "quick", { n: 1 }));
    await harness.until(() => harness.replies.has(1));
    harness.stdin.emit("error", new Error("EIO"));
    await harness.connection.closed;
    expect(harness.replies.get(1)).toMatchObject({ result: { content: [{ text: "1" }] } });
  });
});
