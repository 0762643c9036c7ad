import { describe, expect, it } from "vitest";
import { call, serve, untilCancelled } from "./in-process.test-util.js";

describe("shutdown: the end of input, close(), and what every request is answered then", () => {
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
    const server = untilCancelled();
    let started!: () => void;
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    server.tool({
      name: "watch",
      description: "runs until cancelled, saying when it starts",
      handler: (_args, ctx) => {
        started();
        return new Promise((resolve) => ctx.signal.addEventListener("abort", () => resolve("aborted"), { once: true }));
      },
    });
    const harness = serve(server);
    harness.write(call(1, "watch"));
    await running;
    await harness.connection.close();
    expect(harness.replies.get(1)).toMatchObject({ result: { content: [{ text: "aborted" }] } });
    // Nothing listens to stdin any more: a later line cannot be read, so it is never answered.
    expect(harness.stdin.listenerCount("data")).toBe(0);
    harness.write(call(2, "quick", { n: 2 }));
    expect(harness.replies.has(2)).toBe(false);
  });

  it("a synchronous handler that calls close() gets its reply; a request read after it in its chunk is refused", async () => {
    const server = untilCancelled();
    let harness!: ReturnType<typeof serve>;
    let closing: Promise<void> | undefined;
    server.tool({
      name: "quit",
      description: "closes the server, answering at once",
      handler: () => {
        closing = harness.connection.close();
        return "bye";
      },
    });
    harness = serve(server);
    harness.write(call(1, "quick", { n: 1 }), call(2, "quit"), call(3, "quick", { n: 3 }));
    await harness.connection.closed;
    await closing;
    expect(harness.all.map((reply) => reply.id)).toEqual([1, 2, 3]);
    expect(harness.replies.get(2)).toMatchObject({ result: { content: [{ text: "bye" }] } });
    expect(harness.replies.get(3)).toMatchObject({
      error: { code: -32000, message: "Server shutting down: the server was closed before this request's turn came" },
    });
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
