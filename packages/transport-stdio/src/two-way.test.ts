import { PassThrough } from "node:stream";
import { createServer, type RequestContext, type Server } from "@toolsmith/core";
import { type ConnectOptions, MetaKey } from "@toolsmith/core/transport";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { type StdioOptions, serveStdio } from "./index.js";

// The outbound side over stdio: the server's own requests, their answers, listen streams at EOF, and detaching.

const INIT = (id: number, capabilities: Record<string, unknown> = {}) =>
  JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities, clientInfo: { name: "t", version: "1" } },
  });
const INITIALIZED = JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" });

function serve(server: Server, options: Partial<StdioOptions> = {}) {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const lines: Record<string, unknown>[] = [];
  const waiters: (() => void)[] = [];
  let buffer = "";
  stdout.setEncoding("utf8").on("data", (chunk: string) => {
    buffer += chunk;
    const parts = buffer.split("\n");
    buffer = parts.pop() ?? "";
    for (const text of parts) lines.push(JSON.parse(text) as Record<string, unknown>);
    for (const wake of waiters.splice(0)) wake();
  });
  const connection = serveStdio(server, {
    stdin,
    stdout,
    stderr: new PassThrough(),
    exitOnEnd: false,
    redirectStdout: false,
    ...options,
  });
  const until = async (found: () => boolean) => {
    while (!found()) await new Promise<void>((resolve) => waiters.push(resolve));
  };
  return {
    connection,
    lines,
    until,
    write: (...text: string[]) => stdin.write(`${text.join("\n")}\n`),
    end: () => stdin.end(),
  };
}

describe("serveStdio, two-way", () => {
  it("the client's answers to the server's requests pass the in-flight limit (no deadlock at maxInFlight)", async () => {
    const server = createServer({ name: "ask", version: "1", clientRequestTimeoutMs: 60_000 });
    server.tool({
      name: "ask",
      description: "asks the user",
      handler: async (_args, ctx) => {
        const answer = await ctx.elicit({ message: "ok?", schema: { ok: z.boolean() } });
        return answer.action;
      },
    });
    const stdio = serve(server, { maxInFlight: 2 });
    stdio.write(INIT(0, { elicitation: {} }), INITIALIZED);
    for (let id = 1; id <= 4; id++) {
      stdio.write(JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "ask" } }));
    }
    // Answer every question as it comes; a question's answer queues behind calls 3 and 4 while 1 and 2 hold the slots.
    const answered = new Set<unknown>();
    const results = () => stdio.lines.filter((line) => "result" in line && line.id !== 0);
    while (results().length < 4) {
      await stdio.until(
        () =>
          stdio.lines.some((line) => line.method === "elicitation/create" && !answered.has(line.id)) ||
          results().length === 4,
      );
      for (const line of stdio.lines) {
        if (line.method !== "elicitation/create" || answered.has(line.id)) continue;
        answered.add(line.id);
        stdio.write(
          JSON.stringify({ jsonrpc: "2.0", id: line.id, result: { action: "accept", content: { ok: true } } }),
        );
      }
    }
    expect(
      results()
        .map((line) => line.id)
        .sort(),
    ).toEqual([1, 2, 3, 4]);
    expect(results().every((line) => JSON.stringify(line).includes('"text":"accept"'))).toBe(true);
    stdio.end();
    await stdio.connection.closed;
  });

  it("answers inside a batch that also holds a request (2025-03-26) reach their calls while those hold every slot", async () => {
    const server = createServer({ name: "roots", version: "1", clientRequestTimeoutMs: 60_000 });
    server.tool({
      name: "roots",
      description: "lists the client's roots",
      handler: async (_args, ctx) => `${(await ctx.roots()).length} roots`,
    });
    const stdio = serve(server, { maxInFlight: 2 });
    stdio.write(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: { protocolVersion: "2025-03-26", capabilities: { roots: {} }, clientInfo: { name: "t", version: "1" } },
      }),
      INITIALIZED,
    );
    for (let id = 1; id <= 3; id++) {
      stdio.write(JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "roots" } }));
    }
    const asked = () => stdio.lines.filter((line) => line.method === "roots/list");
    await stdio.until(() => asked().length === 2);
    // Calls 1 and 2 hold both slots, call 3 waits for one: the batch with the answers must not wait behind it.
    const answers = asked().map((ask) => ({ jsonrpc: "2.0", id: ask.id, result: { roots: [] } }));
    stdio.write(JSON.stringify([...answers, { jsonrpc: "2.0", id: 4, method: "ping" }]));
    await stdio.until(() => asked().length === 3);
    const third = asked()[2] as { id: number };
    stdio.write(JSON.stringify({ jsonrpc: "2.0", id: third.id, result: { roots: [] } }));
    const calls = () => stdio.lines.filter((line) => "result" in line && typeof line.id === "number" && line.id >= 1);
    await stdio.until(() => calls().length === 3 && stdio.lines.some((line) => Array.isArray(line)));
    expect(calls()).toEqual(
      [1, 2, 3].map((id) => ({
        jsonrpc: "2.0",
        id,
        result: { content: [{ type: "text", text: "0 roots" }], isError: false },
      })),
    );
    expect(stdio.lines.find((line) => Array.isArray(line))).toEqual([{ jsonrpc: "2.0", id: 4, result: {} }]);
    stdio.end();
    await stdio.connection.closed;
  });

  it("at EOF a call awaiting the client's answer gets one isError reply at once, and one asking later fails at once", async () => {
    const server = createServer({ name: "ask", version: "1", clientRequestTimeoutMs: 60_000 });
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const ask = async (ctx: RequestContext) =>
      (await ctx.elicit({ message: "ok?", schema: { ok: z.boolean() } })).action;
    server.tool({ name: "ask", description: "asks", handler: (_args, ctx) => ask(ctx) });
    server.tool({
      name: "later",
      description: "asks once let go",
      handler: async (_args, ctx) => gate.then(() => ask(ctx)),
    });
    const stdio = serve(server, { shutdownTimeoutMs: 60_000 });
    stdio.write(INIT(0, { elicitation: {} }), INITIALIZED);
    stdio.write(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "ask" } }));
    stdio.write(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "later" } }));
    await stdio.until(() => stdio.lines.some((line) => line.method === "elicitation/create"));
    stdio.end();
    await stdio.until(() => stdio.lines.some((line) => line.id === 1));
    open();
    // Not at the 60 s shutdown timeout: neither call can get an answer any more, and both are told so.
    await stdio.connection.closed;
    const replies = stdio.lines.filter((line) => line.id === 1 || line.id === 2);
    expect(replies).toEqual([
      {
        jsonrpc: "2.0",
        id: 1,
        result: {
          content: [{ type: "text", text: "The client's input ended before it answered elicitation/create" }],
          isError: true,
        },
      },
      {
        jsonrpc: "2.0",
        id: 2,
        result: {
          content: [{ type: "text", text: "Cannot ask elicitation/create: the client's input has ended" }],
          isError: true,
        },
      },
    ]);
    expect(stdio.lines.filter((line) => line.method === "elicitation/create")).toHaveLength(1);
  });

  it("a listen stream still open at EOF ends at once with its closing result, not at the shutdown timeout", async () => {
    const server = createServer({ name: "listen", version: "1" });
    server.tool({ name: "t", description: "t", handler: () => 1 });
    const stdio = serve(server, { shutdownTimeoutMs: 60_000 });
    const meta = { [MetaKey.protocolVersion]: "2026-07-28", [MetaKey.clientCapabilities]: {} };
    stdio.write(
      JSON.stringify({
        jsonrpc: "2.0",
        id: "l1",
        method: "subscriptions/listen",
        params: { _meta: meta, notifications: { toolsListChanged: true } },
      }),
    );
    stdio.end();
    await stdio.connection.closed;
    expect(stdio.lines.map((line) => line.method ?? `result ${String(line.id)}`)).toEqual([
      "notifications/subscriptions/acknowledged",
      "result l1",
    ]);
  });

  it("a session that ended stops hearing of list changes (its connection is closed, not left attached)", async () => {
    const server = createServer({ name: "detach", version: "1" });
    const tool = server.tool({ name: "t", description: "t", handler: () => 1 });
    let sent = 0;
    const connect = server.connect.bind(server);
    server.connect = (options: ConnectOptions) =>
      connect({
        ...options,
        send: (line, delivery) => {
          sent++;
          options.send(line, delivery);
        },
      });
    const stdio = serve(server);
    stdio.write(INIT(0), INITIALIZED);
    stdio.end();
    await stdio.connection.closed;
    const before = sent;
    tool.disable();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(sent).toBe(before);
  });
});
