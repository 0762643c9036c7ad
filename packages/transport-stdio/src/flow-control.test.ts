import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { call, cancel, serve, untilCancelled } from "./in-process.test-util.js";
import { serveStdio } from "./index.js";

// stdout as a PassThrough whose writes are recorded (the empty write shutdown flushes with is left out).
function recordedStdout(options: { highWaterMark?: number } = {}) {
  const stdout = new PassThrough(options);
  const writes: string[] = [];
  const write = stdout.write.bind(stdout) as (chunk: string, callback?: () => void) => boolean;
  stdout.write = ((chunk: string, callback?: () => void) => {
    if (chunk !== "") writes.push(chunk);
    return write(chunk, callback);
  }) as typeof stdout.write;
  return { stdout, writes };
}

const lineIds = (writes: string[]) =>
  writes.flatMap((chunk) => chunk.split("\n").slice(0, -1)).map((line) => (JSON.parse(line) as { id: unknown }).id);

describe("flow control: the in-flight limit, the waiting queue and its bound", () => {
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

  it("a tap that throws reaches a server that has only onError (no logger), with the error itself", async () => {
    const heard: [unknown, { method: string }][] = [];
    const thrown = new Error("tap broke");
    const harness = serve(
      untilCancelled().onError((error, where) => heard.push([error, where])),
      {
        tap: () => {
          throw thrown;
        },
      },
    );
    harness.write(call(1, "quick", { n: 1 }));
    harness.end();
    await harness.connection.closed;
    expect(harness.replies.get(1)).toMatchObject({ result: { content: [{ text: "1" }] } });
    expect(heard).toContainEqual([thrown, { method: "(tap)" }]);
  });

  it("the replies a chunk's lines get at once go out together: a few in one write, in order", async () => {
    const stdin = new PassThrough();
    const { stdout, writes } = recordedStdout();
    stdout.resume();
    const options = { stdin, stdout, stderr: new PassThrough(), exitOnEnd: false, redirectStdout: false };
    const connection = serveStdio(untilCancelled(), options);
    stdin.write(`${[1, 2, 3].map((n) => call(n, "quick", { n })).join("\n")}\n`);
    stdin.end();
    await connection.closed;
    expect(writes).toHaveLength(1);
    expect(lineIds(writes)).toEqual([1, 2, 3]);
  });

  it("a long chunk's replies go out a KiB or so at a time, not all at its end: the client reads the first early", async () => {
    const stdin = new PassThrough();
    const { stdout, writes } = recordedStdout();
    stdout.resume();
    const options = { stdin, stdout, stderr: new PassThrough(), exitOnEnd: false, redirectStdout: false };
    const connection = serveStdio(untilCancelled(), options);
    const ids = Array.from({ length: 100 }, (_, i) => i + 1);
    stdin.write(`${ids.map((n) => call(n, "quick", { n })).join("\n")}\n`);
    stdin.end();
    await connection.closed;
    expect(lineIds(writes)).toEqual(ids);
    const reply = Math.max(...writes.flatMap((chunk) => chunk.split("\n").map((line) => line.length + 1)));
    expect(writes.length).toBeGreaterThan(3);
    for (const chunk of writes) expect(chunk.length).toBeLessThan(1024 + reply);
  });

  it("replies held for one write still stop serving once stdout is full: the rest of the chunk waits for it", async () => {
    const stdin = new PassThrough();
    // Nothing reads stdout until the end: its buffer fills.
    const { stdout, writes } = recordedStdout({ highWaterMark: 1024 });
    const options = { stdin, stdout, stderr: new PassThrough(), exitOnEnd: false, redirectStdout: false };
    const connection = serveStdio(untilCancelled(), options);
    const ids = Array.from({ length: 1000 }, (_, i) => i + 1);
    // Listeners run in order: once this one hears the chunk, serveStdio's has taken it.
    const read = new Promise((resolve) => stdin.once("data", resolve));
    stdin.write(`${ids.map((n) => call(n, "quick", { n })).join("\n")}\n`);
    await read;
    // Some replies went out (their write said stdout is full); the rest were not served, so not held in memory.
    expect(writes.length).toBeGreaterThan(0);
    expect(lineIds(writes).length).toBeLessThan(ids.length / 2);
    stdout.resume();
    stdin.end();
    await connection.closed;
    expect(lineIds(writes)).toEqual(ids);
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
});
