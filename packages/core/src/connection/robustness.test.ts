import { describe, expect, it } from "vitest";
import { z } from "zod";
import * as z3 from "zod/v3";
import { createServer, type ErrorReport } from "../index.js";
import { createTestClient } from "../testing/client.js";
import { MetaKey } from "../transport.js";
import { connectLines, replyTo } from "./connection.test-util.js";
import { fixture, handshake, type Json, send } from "./fixture.test-util.js";
import "../schema/zod-v3.js";

const META = { [MetaKey.protocolVersion]: "2026-07-28", [MetaKey.clientCapabilities]: {} };

const INITIALIZE_2025_03_26 = JSON.stringify({
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: { protocolVersion: "2025-03-26", capabilities: {}, clientInfo: { name: "c", version: "1" } },
});

function line(id: unknown, method: string, params?: Record<string, unknown>): string {
  return JSON.stringify(params === undefined ? { jsonrpc: "2.0", id, method } : { jsonrpc: "2.0", id, method, params });
}

describe("every request gets its one reply, even when the result cannot be serialized", () => {
  const reports: [unknown, ErrorReport][] = [];
  const server = createServer({ name: "r", version: "1", onError: (error, where) => reports.push([error, where]) });
  server.tool({ name: "big", description: "a BigInt", handler: () => ({ content: [], structuredContent: { n: 1n } }) });
  server.tool({ name: "big_data", description: "a BigInt as data", handler: () => ({ n: 1n }) });
  server.tool({
    name: "cycle",
    description: "a cycle",
    handler: () => {
      const node: Record<string, unknown> = {};
      node.self = node;
      return { content: [], structuredContent: node };
    },
  });
  server.tool({
    name: "foreign",
    description: "throws an McpError from another library",
    handler: () => {
      throw Object.assign(new Error("nope"), { name: "McpError", code: -32042, data: { why: "url" } });
    },
  });
  server.tool({ name: "ok", description: "fine", handler: () => "fine" });
  server.resource({
    uri: "bad://big",
    // In the result's `_meta`, which every revision has (2025-03-26 drops a contents' `_meta`).
    handler: () => ({ contents: [{ uri: "bad://big", text: "t" }], _meta: { n: 1n } }),
  });

  it("a BigInt or a cycle in a result becomes -32603 for that id", async () => {
    const session = connectLines(server);
    for (const name of ["big", "cycle"]) {
      const reply = JSON.parse((await replyTo(session, line(name, "tools/call", { name, _meta: META }))) as string);
      expect(reply).toEqual({ jsonrpc: "2.0", id: name, error: { code: -32603, message: "Internal error" } });
    }
    expect(reports.some(([, where]) => where.method === "(serialize)")).toBe(true);
  });

  it("data a tool returns that JSON cannot hold is the tool's failure: an isError result", async () => {
    const result = await (await createTestClient(server)).callTool("big_data");
    expect(result.isError).toBe(true);
    expect(result.content[0]).toMatchObject({ type: "text", text: expect.stringContaining("BigInt") });
  });

  it("in a 2025-03-26 batch, one unserializable entry does not lose the others", async () => {
    const session = connectLines(server);
    await replyTo(session, INITIALIZE_2025_03_26);
    const batch = `[${line(1, "resources/read", { uri: "bad://big" })},${line(2, "tools/call", { name: "ok" })}]`;
    const replies = JSON.parse((await replyTo(session, batch)) as string);
    expect(replies).toEqual([
      { jsonrpc: "2.0", id: 1, error: { code: -32603, message: "Internal error" } },
      { jsonrpc: "2.0", id: 2, result: { content: [{ type: "text", text: "fine" }], isError: false } },
    ]);
  });

  it("an McpError from another library keeps its code, message and data", async () => {
    const client = await createTestClient(server);
    await expect(client.callTool("foreign")).rejects.toMatchObject({
      code: -32042,
      message: "nope",
      data: { why: "url" },
    });
  });
});

describe("output schemas: what goes out is the validated value", () => {
  const server = createServer({ name: "o", version: "1" });
  server.tool({
    name: "defaults",
    description: "relies on a default and returns an extra key",
    output: z.object({ count: z.number(), unit: z.string().default("items") }),
    handler: () => ({ count: 2, secret: "not listed" }),
  });
  server.tool({ name: "number", description: "a number", output: z.number(), handler: () => 42 });
  server.tool({
    name: "whole",
    description: "a whole result",
    output: z.object({ ok: z.boolean() }),
    handler: () => ({
      content: [{ type: "text" as const, text: "done" }],
      structuredContent: { ok: true, extra: 1 },
    }),
  });

  it("fills defaults and drops unknown keys, in the text too", async () => {
    const client = await createTestClient(server);
    const result = await client.callTool("defaults");
    expect(result.structuredContent).toEqual({ count: 2, unit: "items" });
    expect(result.content).toEqual([{ type: "text", text: '{"count":2,"unit":"items"}' }]);
    const [tool] = await client.listTools();
    expect(tool?.outputSchema).toMatchObject({ required: ["count", "unit"], additionalProperties: false });
  });

  it("a non-object output schema works in 2026-07-28 and keeps its text before", async () => {
    expect((await (await createTestClient(server)).callTool("number")).structuredContent).toBe(42);
    const legacy = await (await createTestClient(server, { protocolVersion: "2025-11-25" })).callTool("number");
    expect(legacy).toEqual({ content: [{ type: "text", text: "42" }], isError: false });
  });

  it("a whole result keeps its content and gets the validated structured content", async () => {
    const result = await (await createTestClient(server)).callTool("whole");
    expect(result).toMatchObject({ content: [{ type: "text", text: "done" }], structuredContent: { ok: true } });
    expect(result.structuredContent).toEqual({ ok: true });
  });
});

describe("results a client would reject are not sent as such", () => {
  const server = createServer({ name: "x", version: "1" });
  server.tool({ name: "when", description: "a Date", handler: () => new Date("2026-01-02T03:04:05.000Z") });
  server.tool({
    name: "bad_block",
    description: "an embedded resource without text or blob",
    handler: () => ({ type: "resource", resource: { uri: "x://y" } }),
  });

  it("a Date is sent as the string it serializes to; before 2026-07-28 only as text", async () => {
    expect((await (await createTestClient(server)).callTool("when")).structuredContent).toBe(
      "2026-01-02T03:04:05.000Z",
    );
    const legacy = await (await createTestClient(server, { protocolVersion: "2025-11-25" })).callTool("when");
    expect(legacy).toEqual({ content: [{ type: "text", text: '"2026-01-02T03:04:05.000Z"' }], isError: false });
  });

  it("an embedded resource without text or blob is data, not a content block", async () => {
    const result = await (await createTestClient(server)).callTool("bad_block");
    expect(result.content[0]).toMatchObject({ type: "text" });
    expect(result.structuredContent).toEqual({ type: "resource", resource: { uri: "x://y" } });
  });
});

describe("cancellation frees the id at once, and batches run one entry at a time", () => {
  it("a cancelled id can be reused while its handler is still running", async () => {
    let release!: () => void;
    const blocked = new Promise<void>((resolve) => {
      release = resolve;
    });
    const server = createServer({ name: "c", version: "1" });
    server.tool({
      name: "wait",
      description: "waits",
      handler: async () => {
        await blocked;
        return "late";
      },
    });
    const session = connectLines(server);
    const first = replyTo(session, line(7, "tools/call", { name: "wait", _meta: META }));
    await replyTo(
      session,
      JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 7, _meta: META } }),
    );
    const second = replyTo(session, line(7, "tools/call", { name: "wait", _meta: META }));
    release();
    expect(await first).toBeUndefined();
    expect(JSON.parse((await second) as string)).toMatchObject({ id: 7, result: { content: [{ text: "late" }] } });
  });

  it("a 2025-03-26 batch never has two of its entries running at once", async () => {
    let running = 0;
    let peak = 0;
    const server = createServer({ name: "b", version: "1" });
    server.tool({
      name: "slow",
      description: "slow",
      handler: async () => {
        running++;
        peak = Math.max(peak, running);
        await new Promise((resolve) => setTimeout(resolve, 1));
        running--;
        return "ok";
      },
    });
    const session = connectLines(server);
    await replyTo(session, INITIALIZE_2025_03_26);
    const batch = `[${Array.from({ length: 20 }, (_, i) => line(i + 1, "tools/call", { name: "slow" })).join(",")}]`;
    const replies = JSON.parse((await replyTo(session, batch)) as string) as { id: number }[];
    expect(replies.map((reply) => reply.id)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(peak).toBe(1);
  });
});

describe("arguments named like Object.prototype members", () => {
  it("an optional argument called constructor or toString may be left out, or given", async () => {
    const server = createServer({ name: "p", version: "1" });
    server.tool({
      name: "odd",
      description: "odd names",
      input: { constructor: z.string().optional(), toString: z.string().optional(), n: z.number() },
      handler: (args) => ({ ...args }),
    });
    const client = await createTestClient(server);
    expect((await client.callTool("odd", { n: 1 })).structuredContent).toEqual({ n: 1 });
    expect((await client.callTool("odd", { n: 1, constructor: "c" })).structuredContent).toEqual({
      n: 1,
      constructor: "c",
    });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe("a value wrong in thousands of places", () => {
  // 10,000 keys, each breaking its rule: the answer lists 20 and counts the rest, in both eras and zod versions.
  const wide = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`k${i}`, i]));

  it("tools/call (zod v4 and v3): 20 issues listed in the text and in data, then how many more", async () => {
    const server = createServer({ name: "w", version: "1" });
    server.tool({ name: "v4", description: "strings", input: z.record(z.string(), z.string()), handler: () => "ok" });
    server.tool({ name: "v3", description: "strings", input: z3.record(z3.string()), handler: () => "ok" });
    for (const protocolVersion of ["2025-11-25", "2026-07-28"] as const) {
      const client = await createTestClient(server, { protocolVersion });
      for (const name of ["v4", "v3"]) {
        const result = await client.callTool(name, wide);
        const text = (result.content[0] as { text: string }).text;
        expect(result.isError).toBe(true);
        expect(text.split("\n").filter((row) => row.startsWith("- "))).toHaveLength(21);
        expect(text).toContain("- k19: ");
        expect(text).not.toContain("- k20: ");
        expect(text).toMatch(/- …: and 9980 more issues$/);
        expect(text.length).toBeLessThan(2000);
      }
    }
    const session = connectLines(server);
    await replyTo(session, INITIALIZE_2025_03_26);
    const reply = JSON.parse(
      (await replyTo(session, line(1, "tools/call", { name: "v4", arguments: wide }))) as string,
    );
    expect(reply.error.data.issues).toHaveLength(21);
  });

  it("prompts/get with 10,000 arguments that are not strings: -32602 naming 20 of them and counting the rest", async () => {
    const server = createServer({ name: "w", version: "1" });
    server.prompt({ name: "p", description: "p", handler: () => "p" });
    const session = connectLines(server);
    const reply = JSON.parse(
      (await replyTo(session, line(1, "prompts/get", { name: "p", arguments: wide, _meta: META }))) as string,
    );
    expect(reply.error.code).toBe(-32602);
    expect(reply.error.message).toMatch(/^Invalid params: arguments\.k0: .*arguments\.k19: [^;]*; and 9980 more$/);
    expect(reply.error.message.length).toBeLessThan(2000);
  });
});

describe("hostile keys", () => {
  const HOSTILE_ARGS =
    '{"__proto__":{"polluted":"args"},"constructor":{"prototype":{"polluted":"args-ctor"}},"text":"hi"}';
  const HOSTILE_META_EXTRA = '"__proto__":{"polluted":"meta"},"constructor":{"prototype":{"polluted":"meta-ctor"}}';

  function clean(): void {
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.keys(Object.prototype)).toEqual([]);
  }

  it("handshake: __proto__ and constructor in arguments, params and _meta pollute nothing", async () => {
    const session = await handshake(fixture().server);
    const line = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":${HOSTILE_ARGS},"__proto__":{"polluted":"params"},"constructor":{"prototype":{"polluted":"params-ctor"}},"_meta":{${HOSTILE_META_EXTRA}}}}`;
    expect(await send(session, line)).toEqual({
      jsonrpc: "2.0",
      id: 1,
      result: { content: [{ type: "text", text: "hi" }], isError: false },
    });
    clean();
  });

  it("stateless: __proto__ and constructor in arguments, params, _meta and clientCapabilities pollute nothing", async () => {
    const session = connectLines(fixture().server);
    const meta = `{${HOSTILE_META_EXTRA},"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"__proto__":{"polluted":"caps"}},"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1","__proto__":{"polluted":"info"}}}`;
    const line = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":${HOSTILE_ARGS},"__proto__":{"polluted":"params"},"_meta":${meta}}}`;
    const reply = (await send(session, line)) as Json;
    expect(reply).toMatchObject({
      jsonrpc: "2.0",
      id: 2,
      result: { content: [{ type: "text", text: "hi" }], isError: false, resultType: "complete" },
    });
    clean();
  });

  it("a hostile envelope and initialize params pollute nothing", async () => {
    const session = connectLines(fixture().server);
    const line = `{"__proto__":{"polluted":"envelope"},"constructor":{"prototype":{"polluted":"env-ctor"}},"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"__proto__":{"polluted":"caps"}},"clientInfo":{"name":"c","version":"1","__proto__":{"polluted":"info"}}}}`;
    expect(await send(session, line)).toMatchObject({ id: 3, result: { protocolVersion: "2025-11-25" } });
    clean();
  });

  it("hostile prompt arguments and cancel params pollute nothing and are answered", async () => {
    const session = await handshake(fixture().server);
    const line = `{"jsonrpc":"2.0","id":4,"method":"prompts/get","params":{"name":"greet","arguments":{"person":"Ann","__proto__":"x","constructor":"y"}}}`;
    expect(await send(session, line)).toEqual({
      jsonrpc: "2.0",
      id: 4,
      result: { messages: [{ role: "user", content: { type: "text", text: "Hello Ann" } }] },
    });
    const cancel = `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"__proto__":{"polluted":"cancel"}}}`;
    expect(await send(session, cancel)).toBeUndefined();
    clean();
  });

  it("a tool whose argument is named constructor gets that argument", async () => {
    const server = createServer({ name: "c", version: "1" });
    server.tool({
      name: "ctor",
      description: "d",
      input: { constructor: z.string() },
      handler: (args) => args.constructor,
    });
    const session = await handshake(server);
    expect(
      await send(session, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"ctor","arguments":{}}}`),
    ).toMatchObject({ id: 5, result: { isError: true } });
    expect(
      await send(
        session,
        `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"ctor","arguments":{"constructor":"built"}}}`,
      ),
    ).toEqual({ jsonrpc: "2.0", id: 6, result: { content: [{ type: "text", text: "built" }], isError: false } });
    clean();
  });
});
