import { describe, expect, it } from "vitest";
import { z } from "zod";
import { connectLines, replyTo, sentOn } from "../connection/connection.test-util.js";
import type { ServerOptions } from "../server/options.js";
import { createServer } from "../server/server.js";
import { createTestClient } from "../testing/client.js";
import { rpcError } from "../testing/expect-errors.test-util.js";
import { ClientError, McpError } from "../wire/errors.js";
import { ErrorCode } from "../wire/json-rpc.js";
import type { RequestContext } from "./context.js";

// Asking the client (elicitation, sampling, roots): one handler, both eras.

function server(options: Partial<ServerOptions> = {}) {
  const s = createServer({ name: "ask", version: "1", ...options });
  const runs = { book: 0, finished: 0 };
  s.tool({
    name: "book",
    description: "Book a seat",
    input: { flight: z.string() },
    handler: async ({ flight }, ctx) => {
      runs.book++;
      const answer = await ctx.elicit({
        message: `Seat for ${flight}?`,
        schema: { seat: z.enum(["aisle", "window"]), count: z.number().int().min(1) },
      });
      if (answer.action !== "accept") return `no booking (${answer.action})`;
      const { seat, count } = answer.content; // typed: "aisle" | "window", number
      const summary = await ctx.sample({
        messages: [{ role: "user", content: { type: "text", text: `Summarise ${count} ${seat}` } }],
        maxTokens: 20,
      });
      runs.finished++;
      return `${count}×${seat} on ${flight}: ${(summary.content as { text: string }).text}`;
    },
  });
  s.tool({
    name: "where",
    description: "Where to save",
    handler: async (_args, ctx) => (await ctx.roots()).map((root) => root.uri).join(","),
  });
  s.tool({
    name: "sample_with_tools",
    description: "Sampling with tools",
    handler: (_args, ctx) =>
      ctx.sample({
        messages: [{ role: "user", content: { type: "text", text: "x" } }],
        maxTokens: 5,
        tools: [{ name: "t", inputSchema: { type: "object" } }],
      }),
  });
  s.tool({
    name: "url",
    description: "URL elicitation",
    handler: async (_args, ctx) =>
      (await ctx.elicit({ mode: "url", message: "Sign in", url: "https://example.com/login" })).action,
  });
  s.tool({
    name: "wait",
    description: "Asks and waits",
    handler: async (_args, ctx: RequestContext) =>
      (await ctx.elicit({ message: "?", schema: { ok: z.boolean() } })).action,
  });
  return { s, runs };
}

const accept = (content: Record<string, unknown>) => async () => ({ action: "accept", content });
const model = async (params: Record<string, unknown>) => ({
  role: "assistant",
  content: { type: "text", text: `ok(${(params.messages as unknown[]).length})` },
  model: "test-model",
});

describe.each(["2025-11-25", "2026-07-28"] as const)("asking the client in %s", (protocolVersion) => {
  it("elicits a typed, validated answer and samples, in one handler written once", async () => {
    const { s, runs } = server();
    const client = await createTestClient(s, {
      protocolVersion,
      elicit: accept({ seat: "aisle", count: 2 }),
      sample: model,
    });
    const exchange = await client.exchange("tools/call", { name: "book", arguments: { flight: "LH 123" } });
    expect(exchange.result.content).toEqual([{ type: "text", text: "2×aisle on LH 123: ok(1)" }]);
    expect(exchange.requests.map((request) => request.method)).toEqual([
      "elicitation/create",
      "sampling/createMessage",
    ]);
    expect(exchange.requests[0]?.params).toMatchObject({
      message: "Seat for LH 123?",
      requestedSchema: {
        type: "object",
        properties: { seat: { type: "string", enum: ["aisle", "window"] }, count: { type: "integer", minimum: 1 } },
        required: ["seat", "count"],
      },
    });
    expect(runs.finished).toBe(1);
    // Handshake era: one run with real requests; 2026-07-28: a replay per input round.
    expect(exchange.rounds).toBe(protocolVersion === "2026-07-28" ? 2 : 0);
    expect(runs.book).toBe(protocolVersion === "2026-07-28" ? 3 : 1);
  });

  it("a declined elicitation reaches the handler as such", async () => {
    const { s } = server();
    const client = await createTestClient(s, {
      protocolVersion,
      elicit: async () => ({ action: "decline" }),
      sample: model,
    });
    expect(await client.callTool("book", { flight: "X" })).toMatchObject({
      content: [{ text: "no booking (decline)" }],
    });
  });

  it("an answer that does not fit the schema is an error result naming the field, not a typed lie", async () => {
    const { s, runs } = server();
    const client = await createTestClient(s, {
      protocolVersion,
      elicit: accept({ seat: "roof", count: 2 }),
      sample: model,
    });
    const result = await client.callTool("book", { flight: "X" });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain("seat");
    expect(runs.finished).toBe(0);
  });

  it("a client without the capability gets -32021 naming what is required, and the question is never sent", async () => {
    const { s } = server();
    const client = await createTestClient(s, { protocolVersion, capabilities: {} });
    const error = await rpcError(client.callTool("book", { flight: "X" }));
    expect(error.code).toBe(ErrorCode.MissingRequiredClientCapability);
    expect(error.data).toEqual({ requiredCapabilities: { elicitation: {} } });
    expect(client.messages.some((record) => record.line.includes("elicitation/create"))).toBe(false);

    const roots = await rpcError(client.callTool("where"));
    expect(roots.data).toEqual({ requiredCapabilities: { roots: {} } });
  });

  it("sampling with tools needs the client's sampling.tools", async () => {
    const { s } = server();
    const client = await createTestClient(s, { protocolVersion, capabilities: { sampling: {} }, sample: model });
    const error = await rpcError(client.callTool("sample_with_tools"));
    expect(error.data).toEqual({ requiredCapabilities: { sampling: { tools: {} } } });
  });

  it("roots come back as a list", async () => {
    const { s } = server();
    const client = await createTestClient(s, {
      protocolVersion,
      roots: [{ uri: "file:///work", name: "work" }, { uri: "file:///tmp" }],
    });
    expect(await client.callTool("where")).toMatchObject({ content: [{ text: "file:///work,file:///tmp" }] });
  });

  it("URL elicitation needs the client's elicitation.url; form-only clients get -32021", async () => {
    const { s } = server();
    const formOnly = await createTestClient(s, {
      protocolVersion,
      capabilities: { elicitation: {} },
      elicit: accept({}),
    });
    expect((await rpcError(formOnly.callTool("url"))).data).toEqual({
      requiredCapabilities: { elicitation: { url: {} } },
    });
    const both = await createTestClient(s, { protocolVersion, elicit: async () => ({ action: "accept" }) });
    const exchange = await both.exchange("tools/call", { name: "url" });
    expect(exchange.result.content).toEqual([{ type: "text", text: "accept" }]);
    const params = exchange.requests[0]?.params as Record<string, unknown>;
    expect(params).toMatchObject({ mode: "url", message: "Sign in", url: "https://example.com/login" });
    // 2025-11-25 pairs the question with an id; 2026-07-28 removed it.
    expect("elicitationId" in params).toBe(protocolVersion === "2025-11-25");
  });
});

describe("asking in the handshake era: requests to the client", () => {
  it("sends a JSON-RPC request related to the call, and matches the client's answer by id", async () => {
    const { s } = server();
    const client = await createTestClient(s, { protocolVersion: "2025-11-25", elicit: accept({ ok: true }) });
    await client.callTool("wait");
    const request = client.messages.find((record) => record.line.includes('"elicitation/create"'));
    expect(request?.direction).toBe("out");
    expect(request?.message).toMatchObject({ jsonrpc: "2.0", id: 0, method: "elicitation/create" });
    const answer = client.messages.find((record) => record.direction === "in" && record.line.includes('"result"'));
    expect(answer?.message).toMatchObject({ id: 0, result: { action: "accept" } });
  });

  it("2025-06-18 has form elicitation without `mode`, and no URL mode", async () => {
    const { s } = server();
    const client = await createTestClient(s, { protocolVersion: "2025-06-18", elicit: accept({ ok: true }) });
    const exchange = await client.exchange("tools/call", { name: "wait" });
    expect("mode" in (exchange.requests[0]?.params ?? {})).toBe(false);
    expect((await rpcError(client.callTool("url"))).code).toBe(ErrorCode.MissingRequiredClientCapability);
  });

  it("2025-03-26 has no elicitation at all", async () => {
    const { s } = server();
    const client = await createTestClient(s, { protocolVersion: "2025-03-26", elicit: accept({ ok: true }) });
    expect((await rpcError(client.callTool("wait"))).message).toContain("2025-03-26");
  });

  it("an unanswered request times out: the handler sees the error and the client is told to stop", async () => {
    const { s } = server({ clientRequestTimeoutMs: 20 });
    const client = await createTestClient(s, { protocolVersion: "2025-11-25", elicit: () => new Promise(() => {}) });
    const result = await client.callTool("wait");
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain("did not answer elicitation/create within 20 ms");
    expect(client.notifications).toContainEqual({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: 0, reason: "timed out after 20 ms" },
    });
  });

  it("cancelling the call abandons its question: notifications/cancelled for the server's request, no reply to the call", async () => {
    const { s } = server();
    let asked: () => void = () => {};
    const pending = new Promise<void>((resolve) => {
      asked = resolve;
    });
    const client = await createTestClient(s, {
      protocolVersion: "2025-11-25",
      elicit: () => {
        asked();
        return new Promise(() => {});
      },
    });
    const line = JSON.stringify({ jsonrpc: "2.0", id: "c1", method: "tools/call", params: { name: "wait" } });
    void client.send(line);
    await pending;
    await client.notify("notifications/cancelled", { requestId: "c1", reason: "user hit stop" });
    await new Promise((resolve) => setTimeout(resolve, 10));
    const cancelled = client.notifications.filter((n) => n.method === "notifications/cancelled");
    expect(cancelled).toEqual([
      {
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId: 0, reason: "the request that asked was cancelled" },
      },
    ]);
    expect(client.messages.some((record) => record.direction === "out" && record.line.includes('"id":"c1"'))).toBe(
      false,
    );
  });

  it("when the client's input ends, open questions fail at once (the client is told to stop), and later ones too", async () => {
    const { s } = server();
    const connection = connectLines(s);
    const init = {
      protocolVersion: "2025-11-25",
      capabilities: { elicitation: {} },
      clientInfo: { name: "c", version: "1" },
    };
    await replyTo(connection, JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: init }));
    await replyTo(connection, JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
    const call = (id: number) =>
      replyTo(connection, JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "wait" } }));
    const first = call(1);
    expect(sentOn(connection).some(({ line }) => line.includes('"elicitation/create"'))).toBe(true);
    connection.endOfInput();
    expect(JSON.parse((await first) as string)).toMatchObject({
      id: 1,
      result: { isError: true, content: [{ text: "The client's input ended before it answered elicitation/create" }] },
    });
    expect(
      sentOn(connection)
        .map(({ line }) => JSON.parse(line))
        .filter((m) => m.method === "notifications/cancelled"),
    ).toEqual([
      {
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId: 0, reason: "the client's input ended" },
      },
    ]);
    const asked = sentOn(connection).length;
    expect(JSON.parse((await call(2)) as string)).toMatchObject({
      id: 2,
      result: { isError: true, content: [{ text: "Cannot ask elicitation/create: the client's input has ended" }] },
    });
    expect(sentOn(connection).length).toBe(asked + 1);
  });

  it("an error answer from the client is the tool's failure (isError), never the call's own JSON-RPC error", async () => {
    const { s } = server();
    const client = await createTestClient(s, {
      protocolVersion: "2025-11-25",
      elicit: () => {
        throw new McpError(ErrorCode.MethodNotFound, "no elicitation here", { secret: "client internals" });
      },
    });
    const result = await client.callTool("wait");
    expect(result.isError).toBe(true);
    expect(result.content).toEqual([
      { type: "text", text: "The client answered elicitation/create with error -32601: no elicitation here" },
    ]);
    expect(JSON.stringify(result)).not.toContain("client internals");
  });

  it("a handler can tell the client's error apart: ClientError carries its code and data", async () => {
    const s = createServer({ name: "e", version: "1" });
    s.tool({
      name: "careful",
      description: "asks, and says what the client said",
      handler: async (_args, ctx) => {
        try {
          await ctx.roots();
          return "roots";
        } catch (error) {
          return error instanceof ClientError ? `client said ${error.code} to ${error.method}` : "other";
        }
      },
    });
    const client = await createTestClient(s, { protocolVersion: "2025-11-25", capabilities: { roots: {} } });
    expect(await client.callTool("careful")).toMatchObject({ content: [{ text: "client said -32601 to roots/list" }] });
  });

  it("a log after the reply is the connection's, no longer related to the finished request", async () => {
    const s = createServer({ name: "late", version: "1" });
    let later: () => void = () => {};
    s.tool({
      name: "leave",
      description: "logs after returning",
      handler: (_args, ctx) => {
        later = () => ctx.log.info("still here");
        return "done";
      },
    });
    const deliveries: unknown[] = [];
    const connection = s.connect({ send: (_line, delivery) => deliveries.push(delivery) });
    connection.receive(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } },
      }),
    );
    connection.receive(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "leave" } }));
    later();
    expect(deliveries.at(-1)).toEqual({ kind: "notification" });
  });
});

describe("asking in 2026-07-28: input_required rounds", () => {
  it("the first call answers input_required with keyed inputRequests and a requestState; no cache hint", async () => {
    const { s } = server();
    const client = await createTestClient(s, { elicit: accept({ ok: true }), followInputRequired: false });
    const result = await client.request("tools/call", { name: "wait" });
    expect(result).toMatchObject({
      resultType: "input_required",
      inputRequests: {
        "elicit-1": {
          method: "elicitation/create",
          params: {
            mode: "form",
            message: "?",
            requestedSchema: { type: "object", properties: { ok: { type: "boolean" } } },
          },
        },
      },
    });
    expect(typeof result.requestState).toBe("string");
    expect("ttlMs" in result || "cacheScope" in result).toBe(false);
  });

  it("a retry that lacks an answer is asked again rather than failed", async () => {
    const { s } = server();
    const client = await createTestClient(s, { elicit: accept({ ok: true }), followInputRequired: false });
    const retry = await client.request("tools/call", {
      name: "wait",
      inputResponses: { wrong_key: { action: "accept" } },
    });
    expect(retry.resultType).toBe("input_required");
  });

  it("answers that are not objects, or inputResponses that is not a map, are -32602", async () => {
    const { s } = server();
    const client = await createTestClient(s, { elicit: accept({ ok: true }), followInputRequired: false });
    expect(
      (await rpcError(client.request("tools/call", { name: "wait", inputResponses: { "elicit-1": 12345 } }))).code,
    ).toBe(ErrorCode.InvalidParams);
    expect((await rpcError(client.request("tools/call", { name: "wait", inputResponses: null }))).code).toBe(
      ErrorCode.InvalidParams,
    );
  });

  it("a handler that asks outside tools/call, prompts/get and resources/read fails instead of answering input_required", async () => {
    const s = createServer({ name: "c", version: "1" });
    s.prompt({
      name: "p",
      description: "p",
      args: { topic: z.string() },
      complete: {
        topic: async (_value, { ctx }) => {
          await ctx.elicit({ message: "?", schema: { x: z.string() } });
          return [];
        },
      },
      handler: () => "x",
    });
    const client = await createTestClient(s, { elicit: accept({ x: "y" }) });
    const error = await rpcError(client.complete({ type: "ref/prompt", name: "p" }, { name: "topic", value: "" }));
    expect(error.code).toBe(ErrorCode.InternalError);
  });
});

describe("the client's answers inside a 2025-03-26 batch", () => {
  it("are taken before the batch's requests, which may be waiting for them (no deadlock)", async () => {
    const s = createServer({ name: "batch", version: "1", clientRequestTimeoutMs: 60_000 });
    let listed!: () => void;
    const rootsListed = new Promise<void>((resolve) => {
      listed = resolve;
    });
    s.tool({
      name: "where",
      description: "The client's roots",
      handler: async (_args, ctx) => {
        const roots = await ctx.roots();
        listed();
        return `${roots.length} roots`;
      },
    });
    s.tool({ name: "after", description: "Waits for the roots", handler: () => rootsListed.then(() => "after") });
    const session = connectLines(s);
    await replyTo(
      session,
      JSON.stringify({
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: { protocolVersion: "2025-03-26", capabilities: { roots: {} }, clientInfo: { name: "c", version: "1" } },
      }),
    );
    const where = replyTo(
      session,
      JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "where" } }),
    );
    const asked = sentOn(session).find((sent) => sent.line.includes('"roots/list"'));
    const id = (JSON.parse(asked?.line ?? "{}") as { id: number }).id;
    // The request that waits on the roots comes first in the batch; the answer that releases them, last.
    const batch = replyTo(
      session,
      JSON.stringify([
        { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "after" } },
        { jsonrpc: "2.0", id, result: { roots: [{ uri: "file:///a" }] } },
      ]),
    );
    expect(JSON.parse((await where) as string).result.content).toEqual([{ type: "text", text: "1 roots" }]);
    expect(JSON.parse((await batch) as string)).toEqual([
      { jsonrpc: "2.0", id: 2, result: { content: [{ type: "text", text: "after" }], isError: false } },
    ]);
  });
});
