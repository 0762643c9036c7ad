import { describe, expect, it } from "vitest";
import { z } from "zod";
import * as z3 from "zod/v3";
import type { LogEntry } from "../context/logger.js";
import { type ErrorReport, McpError, type Server } from "../index.js";
import { text } from "../protocol/results.js";
import { createServer } from "../server/server.js";
import { createTestClient } from "../testing/client.js";
import { rpcError } from "../testing/expect-errors.test-util.js";
import "../schema/zod-v3.js";
import { HANDSHAKE_VERSIONS, STATELESS_VERSIONS } from "../protocol/versions.js";

const REVISIONS = [...HANDSHAKE_VERSIONS, ...STATELESS_VERSIONS];

function newServer(): Server {
  return createServer({ name: "tools-test", version: "1.0.0" });
}

// What each value a tool handler returns becomes on the wire, as the READMEs list it.
function server(entries: LogEntry[] = []) {
  const s = createServer({ name: "returns", version: "1", logger: (entry) => entries.push(entry) });
  const returns = (name: string, value: unknown) =>
    s.tool({ name, description: `returns ${name}`, handler: () => value });
  returns("a_string", "hello");
  returns("a_number", 42);
  returns("an_object", { open: 3 });
  returns("content", [text("one"), text("two")]);
  returns("a_result", { content: [text("failed")], isError: true });
  returns("nothing", undefined);
  returns("null", null);
  s.tool({ name: "forgot", description: "forgets to return", handler: () => {} });
  return s;
}

describe.each(["2025-11-25", "2026-07-28"] as const)("a tool's return value (%s)", (protocolVersion) => {
  it("a string or number is text, an object structuredContent and its JSON, content blocks and results as they are", async () => {
    const client = await createTestClient(server(), { protocolVersion });
    const call = async (name: string) => {
      // Only what the handler decides: the 2026-07-28 resultType and the server's _meta are someone else's test.
      const { content, structuredContent, isError } = await client.callTool(name);
      return structuredContent === undefined ? { content, isError } : { content, structuredContent, isError };
    };
    expect(await call("a_string")).toEqual({ content: [text("hello")], isError: false });
    expect(await call("a_number")).toEqual({ content: [text("42")], isError: false });
    expect(await call("an_object")).toEqual({
      content: [text('{"open":3}')],
      structuredContent: { open: 3 },
      isError: false,
    });
    expect(await call("content")).toEqual({ content: [text("one"), text("two")], isError: false });
    expect(await call("a_result")).toEqual({ content: [text("failed")], isError: true });
    expect(await call("nothing")).toEqual({ content: [], isError: false });
    expect(await call("null")).toEqual({ content: [], isError: false });
  });

  it("a whole result the handler keeps and returns again is sent completed (isError: false) but never changed", async () => {
    const kept = { content: [text("kept")] };
    const s = newServer();
    s.tool({ name: "kept", description: "returns the same result object", handler: () => kept });
    const client = await createTestClient(s, { protocolVersion });
    for (let i = 0; i < 2; i++) {
      const { content, isError } = await client.callTool("kept");
      expect({ content, isError }).toEqual({ content: [text("kept")], isError: false });
    }
    expect(kept).toEqual({ content: [text("kept")] });
  });

  it("undefined is an empty result, and the server's logger hears of it once per tool, however many calls", async () => {
    const entries: LogEntry[] = [];
    const client = await createTestClient(server(entries), { protocolVersion });
    for (let i = 0; i < 3; i++) {
      await client.callTool("forgot");
      await client.callTool("nothing");
      await client.callTool("null");
    }
    expect(entries).toEqual([
      expect.objectContaining({ level: "warning", method: "tools/call", tool: "forgot" }),
      expect.objectContaining({ level: "warning", method: "tools/call", tool: "nothing" }),
    ]);
    expect(entries[0]?.message).toMatch(/^tool forgot returned undefined, so the client got an empty result/);
  });
});

describe("a mounted module's reports", () => {
  it("reach the logger of the server it is mounted in when it has none, once per tool; its own logger keeps its own", async () => {
    const entries: LogEntry[] = [];
    const app = createServer({ name: "app", version: "1", logger: (entry) => entries.push(entry) });
    const sometimes = createServer({ name: "sometimes", version: "1" });
    let calls = 0;
    sometimes.tool({
      name: "flaky",
      description: "returns undefined every other call",
      handler: () => (calls++ % 2 ? undefined : "ok"),
    });
    sometimes.tool({
      name: "broken",
      description: "throws",
      handler: () => {
        throw new TypeError("a bug");
      },
    });
    const ownEntries: LogEntry[] = [];
    const own = createServer({ name: "own", version: "1", logger: (entry) => ownEntries.push(entry) });
    own.tool({ name: "forgot", description: "forgets to return", handler: () => {} });
    app.mount("some", sometimes).mount("own", own);
    const client = await createTestClient(app);
    for (let i = 0; i < 4; i++) await client.callTool("some.flaky");
    await client.callTool("some.broken");
    await client.callTool("own.forgot");
    expect(entries).toEqual([
      expect.objectContaining({
        level: "warning",
        tool: "flaky",
        message: expect.stringMatching(/^tool flaky returned undefined/),
      }),
      expect.objectContaining({ level: "warning", tool: "broken", message: expect.stringContaining("a bug") }),
    ]);
    expect(ownEntries).toEqual([expect.objectContaining({ level: "warning", tool: "forgot" })]);
  });
});

describe("tool handler returns", () => {
  const reports: { error: unknown; where: ErrorReport }[] = [];
  function server(): Server {
    const built = createServer({
      name: "returns",
      version: "1.0.0",
      onError: (error, where) => reports.push({ error, where }),
    });
    built.tool({ name: "string", description: "d", handler: () => "hello" });
    built.tool({ name: "number", description: "d", handler: () => 42 });
    built.tool({ name: "object", description: "d", handler: () => ({ a: 1, b: "x" }) });
    built.tool({
      name: "blocks",
      description: "d",
      handler: () => [text("one"), { type: "image" as const, data: "AAAA", mimeType: "image/png" }],
    });
    built.tool({ name: "block", description: "d", handler: () => text("single") });
    built.tool({
      name: "whole",
      description: "d",
      handler: () => ({ content: [text("whole")], structuredContent: { w: 1 }, isError: false }),
    });
    built.tool({ name: "nothing", description: "d", handler: () => undefined });
    built.tool({
      name: "throws",
      description: "d",
      handler: () => {
        throw new Error("the disk is full");
      },
    });
    built.tool({
      name: "rejects",
      description: "d",
      handler: async () => {
        throw new TypeError("async failure");
      },
    });
    built.tool({
      name: "mcp",
      description: "d",
      handler: () => {
        throw new McpError(-32042, "needs something", { why: "test" });
      },
    });
    return built;
  }

  it("a string becomes one text block", async () => {
    const client = await createTestClient(server(), { protocolVersion: "2025-11-25" });
    const result = await client.callTool("string");
    expect(result.content).toEqual([{ type: "text", text: "hello" }]);
    expect(result.isError ?? false).toBe(false);
    expect(result).not.toHaveProperty("structuredContent");
  });

  it("a number becomes its text", async () => {
    const client = await createTestClient(server(), { protocolVersion: "2025-11-25" });
    expect((await client.callTool("number")).content).toEqual([{ type: "text", text: "42" }]);
  });

  it("a plain object becomes structuredContent plus its JSON text", async () => {
    const client = await createTestClient(server(), { protocolVersion: "2025-11-25" });
    const result = await client.callTool("object");
    expect(result.structuredContent).toEqual({ a: 1, b: "x" });
    expect(result.content).toEqual([{ type: "text", text: JSON.stringify({ a: 1, b: "x" }) }]);
  });

  it("an array of content blocks is the content", async () => {
    const client = await createTestClient(server(), { protocolVersion: "2025-11-25" });
    const result = await client.callTool("blocks");
    expect(result.content).toEqual([
      { type: "text", text: "one" },
      { type: "image", data: "AAAA", mimeType: "image/png" },
    ]);
    expect(result).not.toHaveProperty("structuredContent");
  });

  it("a single block is wrapped", async () => {
    const client = await createTestClient(server(), { protocolVersion: "2025-11-25" });
    expect((await client.callTool("block")).content).toEqual([{ type: "text", text: "single" }]);
  });

  it("a whole result is kept as it is", async () => {
    const client = await createTestClient(server(), { protocolVersion: "2025-11-25" });
    expect(await client.callTool("whole")).toEqual({
      content: [{ type: "text", text: "whole" }],
      structuredContent: { w: 1 },
      isError: false,
    });
  });

  it("undefined is an empty content list", async () => {
    const client = await createTestClient(server(), { protocolVersion: "2025-11-25" });
    const result = await client.callTool("nothing");
    expect(result.content).toEqual([]);
    expect(result.isError ?? false).toBe(false);
  });

  for (const [name, message] of [
    ["throws", "the disk is full"],
    ["rejects", "async failure"],
  ]) {
    it(`a thrown error (${name}) is an isError result with its message and no stack`, async () => {
      reports.length = 0;
      const client = await createTestClient(server(), { protocolVersion: "2025-11-25" });
      const result = await client.callTool(name as string);
      expect(result).toEqual({ content: [{ type: "text", text: message }], isError: true });
      const line = client.messages.at(-1)?.line ?? "";
      expect(line).not.toMatch(/\bat .*(\.ts|\.js)/);
      expect(line).not.toContain("stack");
      expect(reports).toHaveLength(1);
      expect((reports[0]?.error as Error | undefined)?.message).toBe(message);
      expect(reports[0]?.where).toMatchObject({ method: "tools/call", tool: name });
    });
  }

  it("what the handler returned failing to become a result (a BigInt in it) is an isError result, sync or async", async () => {
    const s = newServer();
    s.tool({ name: "big", description: "d", handler: () => ({ n: 1n }) });
    s.tool({ name: "big_later", description: "d", handler: async () => ({ n: 1n }) });
    const client = await createTestClient(s, { protocolVersion: "2025-11-25" });
    for (const name of ["big", "big_later"]) {
      const result = await client.callTool(name);
      expect(result.isError, name).toBe(true);
      expect(result.content[0], name).toMatchObject({ type: "text", text: expect.stringContaining("BigInt") });
    }
  });

  it("a thrown McpError is a JSON-RPC error with its code, message and data", async () => {
    reports.length = 0;
    const client = await createTestClient(server(), { protocolVersion: "2025-11-25" });
    const error = await rpcError(client.callTool("mcp"));
    expect(error.code).toBe(-32042);
    expect(error.message).toBe("needs something");
    expect(error.data).toEqual({ why: "test" });
    expect(reports).toHaveLength(0);
  });
});

describe("output schemas", () => {
  function server(): Server {
    const built = newServer();
    built.tool({
      name: "good",
      description: "d",
      output: z.object({ total: z.number() }),
      handler: () => ({ total: 3 }),
    });
    built.tool({
      name: "bad",
      description: "d",
      output: z.object({ total: z.number() }),
      handler: () => ({ total: "three" }),
    });
    built.tool({
      name: "v3_bad",
      description: "d",
      output: z3.object({ total: z3.number() }),
      handler: () => ({}),
    });
    return built;
  }

  for (const protocolVersion of ["2025-06-18", "2025-11-25", "2026-07-28"] as const) {
    it(`${protocolVersion}: matching structuredContent passes`, async () => {
      const client = await createTestClient(server(), { protocolVersion });
      const result = await client.callTool("good");
      expect(result.isError ?? false).toBe(false);
      expect(result.structuredContent).toEqual({ total: 3 });
      expect(result.content).toEqual([{ type: "text", text: '{"total":3}' }]);
    });
  }

  for (const protocolVersion of REVISIONS) {
    it(`${protocolVersion}: mismatching structuredContent is an isError result naming the field`, async () => {
      const client = await createTestClient(server(), { protocolVersion });
      for (const name of ["bad", "v3_bad"]) {
        const result = await client.callTool(name);
        expect(result.isError).toBe(true);
        expect(result).not.toHaveProperty("structuredContent");
        expect(result.content[0]?.type).toBe("text");
        const message = (result.content[0] as { text: string }).text;
        expect(message).toContain("total");
        expect(message).toMatch(/output schema/);
      }
    });
  }
});

describe("argument validation and unknown names", () => {
  function server(): Server {
    const built = newServer();
    built.tool({
      name: "pay",
      description: "d",
      input: { amount: z.number().positive(), memo: z.string() },
      handler: ({ amount }) => amount,
    });
    return built;
  }

  for (const protocolVersion of ["2025-03-26", "2025-06-18"] as const) {
    it(`${protocolVersion}: invalid tool arguments are JSON-RPC -32602`, async () => {
      const client = await createTestClient(server(), { protocolVersion });
      const error = await rpcError(client.callTool("pay", { amount: "ten" }));
      expect(error.code).toBe(-32602);
      expect(error.message).toContain("amount");
      expect(error.message).toContain("memo");
    });
  }

  for (const protocolVersion of ["2025-11-25", "2026-07-28"] as const) {
    it(`${protocolVersion}: invalid tool arguments are an isError result the model can read`, async () => {
      const client = await createTestClient(server(), { protocolVersion });
      const result = await client.callTool("pay", { amount: -1 });
      expect(result.isError).toBe(true);
      const message = (result.content[0] as { text: string }).text;
      expect(message).toContain("amount");
      expect(message).toMatch(/memo: required/);
    });
  }

  for (const protocolVersion of REVISIONS) {
    it(`${protocolVersion}: an unknown tool is -32602 naming it`, async () => {
      const client = await createTestClient(server(), { protocolVersion });
      const unknownTool = await rpcError(client.callTool("nope", {}));
      expect(unknownTool.code).toBe(-32602);
      expect(unknownTool.message).toContain("nope");
    });
  }
});

describe("per-revision shaping of results", () => {
  function server(): Server {
    const built = newServer();
    built.tool({
      name: "series",
      description: "A list",
      output: z.array(z.number()),
      handler: () => [1, 2, 3],
    });
    built.tool({ name: "raw_list", description: "A list without a schema", handler: () => [1, 2, 3] });
    built.tool({
      name: "scalar",
      description: "A scalar as structuredContent",
      handler: () => ({ content: [], structuredContent: 5 }),
    });
    return built;
  }

  for (const protocolVersion of ["2025-03-26", "2025-06-18", "2025-11-25"] as const) {
    it(`${protocolVersion}: non-object structuredContent is dropped, its JSON text kept`, async () => {
      const client = await createTestClient(server(), { protocolVersion });
      for (const name of ["series", "raw_list"]) {
        const result = await client.callTool(name);
        expect(result).not.toHaveProperty("structuredContent");
        expect(result.content).toEqual([{ type: "text", text: "[1,2,3]" }]);
      }
      expect(await client.callTool("scalar")).not.toHaveProperty("structuredContent");
    });
  }

  it("2026-07-28: non-object structuredContent and outputSchema are kept", async () => {
    const client = await createTestClient(server(), { protocolVersion: "2026-07-28" });
    const series = (await client.listTools()).find((tool) => tool.name === "series");
    expect(series?.outputSchema).toMatchObject({ type: "array", items: { type: "number" } });
    for (const name of ["series", "raw_list"]) {
      const result = await client.callTool(name);
      expect(result.structuredContent).toEqual([1, 2, 3]);
      expect(result.content).toEqual([{ type: "text", text: "[1,2,3]" }]);
    }
    expect((await client.callTool("scalar")).structuredContent).toBe(5);
  });
});
