import { PassThrough, Writable } from "node:stream";
import { createServer, type Server } from "@toolsmith/core";
import { MetaKey } from "@toolsmith/core/transport";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { type StdioOptions, serveStdio, type WireEntry } from "./index.js";

const CLIENT = { name: "tap-client", version: "0.0.1" };
const META = {
  [MetaKey.protocolVersion]: "2026-07-28",
  [MetaKey.clientCapabilities]: {},
  [MetaKey.clientInfo]: CLIENT,
};

type Json = Record<string, unknown>;

function request(id: unknown, method: string, params?: Json): string {
  return JSON.stringify(params === undefined ? { jsonrpc: "2.0", id, method } : { jsonrpc: "2.0", id, method, params });
}

function notification(method: string): string {
  return JSON.stringify({ jsonrpc: "2.0", method });
}

const INITIALIZE = request(1, "initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: CLIENT });
const INITIALIZED = notification("notifications/initialized");

interface Harness {
  /** Every tap call, in order. */
  entries: WireEntry[];
  /** Every line written to stdout (without its "\n"), in order. */
  written: string[];
  /** For each tapped "out" line: was it already on stdout when the tap saw it? */
  writtenBeforeTap: boolean[];
  /** Write the lines to stdin, end it, and wait until every reply is written. */
  run(lines: string[]): Promise<void>;
}

function serve(server: Server, options: Partial<StdioOptions> = {}): Harness {
  const entries: WireEntry[] = [];
  const written: string[] = [];
  const writtenBeforeTap: boolean[] = [];
  const stdin = new PassThrough();
  // A stdout that records each line the moment it is written.
  const stdout = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      const text = chunk.toString("utf8");
      for (const piece of text.split("\n").slice(0, -1)) written.push(piece);
      callback();
    },
  });
  const stderr = new PassThrough();
  stderr.resume();
  const connection = serveStdio(server, {
    stdin,
    stdout,
    stderr,
    exitOnEnd: false,
    redirectStdout: false,
    ...options,
    tap: (entry) => {
      if (entry.direction === "out") writtenBeforeTap.push(written.includes(entry.line));
      entries.push(entry);
      options.tap?.(entry);
    },
  });
  return {
    entries,
    written,
    writtenBeforeTap,
    async run(lines) {
      stdin.end(lines.map((line) => `${line}\n`).join(""));
      await connection.closed;
    },
  };
}

function idOf(line: string): unknown {
  return (JSON.parse(line) as { id?: unknown }).id;
}

function summary(entries: readonly WireEntry[]): string[] {
  return entries.map((entry) => {
    const message = JSON.parse(entry.line) as { id?: unknown; method?: string };
    const what = message.method ?? `reply ${JSON.stringify(message.id)}`;
    return `${entry.direction} ${entry.phase} ${what}`;
  });
}

function newServer(): Server {
  const server = createServer({ name: "tap-test", version: "1.0.0" });
  server.tool({ name: "echo", description: "Echo", input: { text: z.string() }, handler: ({ text }) => text });
  server.tool({
    name: "later",
    description: "Echo, asynchronously",
    input: { text: z.string() },
    handler: async ({ text }) => {
      await new Promise((resolve) => setImmediate(resolve));
      return text;
    },
  });
  return server;
}

describe("serveStdio tap: sees every line, in order, with the connection's phase", () => {
  it("handshake era: initialize and notifications/initialized come in during initialization, later requests in operation", async () => {
    const harness = serve(newServer());
    const call = request(3, "tools/call", { name: "echo", arguments: { text: "hi" } });
    await harness.run([INITIALIZE, INITIALIZED, request(2, "tools/list"), call]);
    expect(summary(harness.entries)).toEqual([
      "in initialization initialize",
      "out initialization reply 1",
      "in initialization notifications/initialized",
      "in operation tools/list",
      "out operation reply 2",
      "in operation tools/call",
      "out operation reply 3",
    ]);
    expect(harness.entries.filter((entry) => entry.direction === "in").map((entry) => entry.line)).toEqual([
      INITIALIZE,
      INITIALIZED,
      request(2, "tools/list"),
      call,
    ]);
  });

  it("the tapped replies are exactly the lines written to stdout, in the same order", async () => {
    const harness = serve(newServer());
    const lines = [INITIALIZE, INITIALIZED];
    for (let id = 10; id < 40; id++) {
      const name = id % 3 === 0 ? "later" : "echo";
      lines.push(request(id, "tools/call", { name, arguments: { text: `t${id}` } }));
    }
    await harness.run(lines);
    const outs = harness.entries.filter((entry) => entry.direction === "out").map((entry) => entry.line);
    expect(outs).toHaveLength(31);
    expect(harness.written).toEqual(outs);
    expect(harness.entries.filter((entry) => entry.direction === "in").map((entry) => entry.line)).toEqual(lines);
  });

  it("stateless era: the first request comes in during initialization, the ones after in operation", async () => {
    const harness = serve(newServer());
    await harness.run([
      request(1, "server/discover", { _meta: META }),
      request(2, "tools/call", { name: "echo", arguments: { text: "x" }, _meta: META }),
    ]);
    expect(summary(harness.entries)).toEqual([
      "in initialization server/discover",
      "out initialization reply 1",
      "in operation tools/call",
      "out operation reply 2",
    ]);
  });

  it("an incoming line is tapped before it is handled", async () => {
    const seenByHandler: (WireEntry | undefined)[] = [];
    let harness: Harness | undefined;
    const server = createServer({ name: "tap-test", version: "1.0.0" });
    server.tool({
      name: "peek",
      description: "Look at the last tapped entry",
      handler: () => {
        seenByHandler.push(harness?.entries.at(-1));
        return "ok";
      },
    });
    server.tool({
      name: "peek-async",
      description: "Look at the last tapped entry, asynchronously",
      handler: async () => {
        seenByHandler.push(harness?.entries.at(-1));
        return "ok";
      },
    });
    harness = serve(server);
    const peek = request(2, "tools/call", { name: "peek" });
    const peekAsync = request(3, "tools/call", { name: "peek-async" });
    await harness.run([INITIALIZE, INITIALIZED, peek, peekAsync]);
    expect(seenByHandler).toEqual([
      { direction: "in", line: peek, phase: "operation" },
      { direction: "in", line: peekAsync, phase: "operation" },
    ]);
  });

  it("a reply is tapped just before it is written, never after", async () => {
    const harness = serve(newServer());
    await harness.run([
      INITIALIZE,
      INITIALIZED,
      request(2, "tools/call", { name: "echo", arguments: { text: "sync" } }),
      request(3, "tools/call", { name: "later", arguments: { text: "async" } }),
      "{not json",
    ]);
    expect(harness.writtenBeforeTap).toEqual([false, false, false, false]);
    expect(harness.written).toHaveLength(4);
  });

  it("an async reply keeps the phase its request came in with, even after the phase changed", async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const server = createServer({ name: "tap-test", version: "1.0.0" });
    server.tool({
      name: "slow",
      description: "Waits for the gate",
      handler: async (_args, ctx) => {
        // The abort only keeps a broken build from hanging the run.
        const aborted = new Promise<void>((resolve) => ctx.signal.addEventListener("abort", () => resolve()));
        await Promise.race([gate, aborted]);
        return ctx.signal.aborted ? "aborted" : "done";
      },
    });
    const harness = serve(server, {
      shutdownTimeoutMs: 1_000,
      tap: (entry) => {
        // Open the gate only once notifications/initialized has come in: the reply is written in operation.
        if (entry.direction === "in" && entry.line === INITIALIZED) release();
      },
    });
    const slow = request(2, "tools/call", { name: "slow" });
    await harness.run([INITIALIZE, slow, INITIALIZED, request(3, "ping")]);
    const { entries } = harness;
    const slowReply = entries.findIndex((entry) => entry.direction === "out" && idOf(entry.line) === 2);
    const initialized = entries.findIndex((entry) => entry.line === INITIALIZED);
    expect(slowReply).toBeGreaterThan(initialized);
    expect(entries[initialized]?.phase).toBe("initialization");
    expect(entries.find((entry) => entry.line === slow)?.phase).toBe("initialization");
    expect(entries[slowReply]?.phase).toBe("initialization");
    expect(entries.find((entry) => entry.direction === "out" && idOf(entry.line) === 3)?.phase).toBe("operation");
    expect(JSON.parse(entries[slowReply]?.line ?? "{}").result.content).toEqual([{ type: "text", text: "done" }]);
  });

  it("notifications are tapped in and have no out", async () => {
    const harness = serve(newServer());
    await harness.run([INITIALIZE, INITIALIZED, notification("notifications/cancelled")]);
    expect(summary(harness.entries)).toEqual([
      "in initialization initialize",
      "out initialization reply 1",
      "in initialization notifications/initialized",
      "in operation notifications/cancelled",
    ]);
  });

  it("a line that is not JSON is tapped in as received, and its parse-error reply out", async () => {
    const harness = serve(newServer());
    await harness.run(["{oops"]);
    expect(harness.entries.map(({ direction, phase }) => `${direction} ${phase}`)).toEqual([
      "in initialization",
      "out initialization",
    ]);
    expect(harness.entries[0]?.line).toBe("{oops");
    expect(JSON.parse(harness.entries[1]?.line ?? "{}")).toMatchObject({ id: null, error: { code: -32700 } });
  });

  it("an oversized line is not tapped in, but its error reply is tapped out", async () => {
    const harness = serve(newServer(), { maxLineBytes: 512 });
    const big = request(9, "tools/call", { name: "echo", arguments: { text: "x".repeat(2000) } });
    const bigLater = request(12, "tools/call", { name: "echo", arguments: { text: "y".repeat(2000) } });
    await harness.run([big, INITIALIZE, INITIALIZED, bigLater, request(13, "ping")]);
    expect(summary(harness.entries)).toEqual([
      "out initialization reply 9",
      "in initialization initialize",
      "out initialization reply 1",
      "in initialization notifications/initialized",
      "out operation reply 12",
      "in operation ping",
      "out operation reply 13",
    ]);
    for (const id of [9, 12]) {
      const reply = harness.entries.find((entry) => entry.direction === "out" && idOf(entry.line) === id);
      expect(JSON.parse(reply?.line ?? "{}")).toMatchObject({ error: { code: -32600 } });
    }
    expect(harness.entries.some((entry) => entry.line.length > 512)).toBe(false);
    expect(harness.written).toEqual(harness.entries.filter((e) => e.direction === "out").map((e) => e.line));
  });

  it("an out line is the line as framed on the pipe (U+2028 escaped), without its newline", async () => {
    const harness = serve(newServer());
    await harness.run([
      INITIALIZE,
      INITIALIZED,
      request(2, "tools/call", { name: "echo", arguments: { text: "a\u2028b\u2029c" } }),
    ]);
    const out = harness.entries.at(-1);
    expect(out?.direction).toBe("out");
    expect(out?.line).toBe(harness.written.at(-1));
    expect(out?.line).not.toMatch(/[\u2028\u2029\n]/);
    expect(out?.line).toContain("a\\u2028b\\u2029c");
    expect(JSON.parse(out?.line ?? "{}").result.content).toEqual([{ type: "text", text: "a\u2028b\u2029c" }]);
  });
});
