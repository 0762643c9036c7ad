import { describe, expect, it } from "vitest";
import type { LogEntry } from "../context/logger.js";
import { text } from "../protocol/results.js";
import { createServer } from "../server/server.js";
import { createTestClient } from "../testing/client.js";

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
