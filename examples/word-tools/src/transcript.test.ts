import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { describe, expect, it } from "vitest";
import { replay } from "../../../scripts/stdio-replay.js";

const serverPath = fileURLToPath(new URL("../dist/main.js", import.meta.url));
const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "a-code-editor", version: "1.0" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

// The seed's five messages ("What MCP is"), verbatim. Its first line carries _meta beside params and the
// rest carry none; 2026-07-28 requires params._meta on every request and forbids inferring it from earlier ones.
const SEED_INBOX = [
  `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{},"_meta":${JSON.stringify(META)}}`,
  '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"word_count","arguments":{"text":"the borrow checker is not your enemy"}}}',
  '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"snake_case","arguments":{"text":"BorrowChecker"}}}',
  '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"word_count","arguments":{"text":""}}}',
  '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":4}}',
];

// The same conversation as the spec has it: _meta inside params, on every request.
const INBOX = SEED_INBOX.map((line) => {
  const message = JSON.parse(line) as { id?: number; params: Record<string, unknown>; _meta?: unknown };
  delete message._meta;
  if (message.id !== undefined) message.params._meta = META;
  return JSON.stringify(message);
});

const SCHEMA = { type: "object", properties: { text: { type: "string" } }, required: ["text"] };
const TOOLS = [
  { name: "word_count", description: "Count whitespace-separated words.", inputSchema: SCHEMA },
  { name: "snake_case", description: "Rewrite CamelCase as snake_case.", inputSchema: SCHEMA },
];
const ANSWERS: Record<number, { text: string; isError: boolean }> = {
  2: { text: "7", isError: false },
  3: { text: "borrow_checker", isError: false },
  4: { text: "text must not be empty", isError: true },
};

describe("word-tools replays the seed transcript over a real pipe", () => {
  it("answers the four requests as the seed does, and not the notification", async () => {
    const { stdout, code } = await replay(serverPath, INBOX);
    expect(code).toBe(0);
    expect(stdout).toHaveLength(4);
    const replies = stdout.map((line) => JSON.parse(line));
    expect(replies.map((reply) => reply.id).sort()).toEqual([1, 2, 3, 4]);
    const byId = new Map(replies.map((reply) => [reply.id, reply]));
    expect(byId.get(1)?.result).toMatchObject({ resultType: "complete", tools: TOOLS });
    expect(byId.get(1)?.result.tools).toEqual(TOOLS);
    for (const [id, { text, isError }] of Object.entries(ANSWERS)) {
      expect(byId.get(Number(id))?.result).toMatchObject({
        resultType: "complete",
        content: [{ type: "text", text }],
        isError,
      });
    }
  });

  it("refuses the verbatim seed lines, which lack params._meta, and still says nothing to the notification", async () => {
    const { stdout, code } = await replay(serverPath, SEED_INBOX);
    expect(code).toBe(0);
    const replies = stdout.map((line) => JSON.parse(line));
    expect(replies.map((reply) => [reply.id, reply.error?.code])).toEqual([
      [1, -32602],
      [2, -32602],
      [3, -32602],
      [4, -32602],
    ]);
  });
});

describe("word-tools with the official client", () => {
  for (const mode of ["legacy", { pin: "2026-07-28" }] as const) {
    it(`lists and calls both tools (${typeof mode === "string" ? mode : mode.pin})`, async () => {
      const client = new Client({ name: "word-tools-test", version: "1.0.0" }, { versionNegotiation: { mode } });
      await client.connect(new StdioClientTransport({ command: process.execPath, args: [serverPath], stderr: "pipe" }));
      try {
        expect((await client.listTools()).tools).toEqual(TOOLS);
        expect(await client.callTool({ name: "word_count", arguments: { text: "a b  c" } })).toMatchObject({
          content: [{ type: "text", text: "3" }],
          isError: false,
        });
        expect(await client.callTool({ name: "snake_case", arguments: { text: "ÄpfelUndBirnen" } })).toMatchObject({
          content: [{ type: "text", text: "äpfel_und_birnen" }],
        });
        expect(await client.callTool({ name: "word_count", arguments: { text: "" } })).toMatchObject({
          content: [{ type: "text", text: "text must not be empty" }],
          isError: true,
        });
        await expect(client.callTool({ name: "word_count", arguments: {} })).resolves.toMatchObject({ isError: true });
        await expect(client.callTool({ name: "count_words", arguments: {} })).rejects.toMatchObject({ code: -32602 });
      } finally {
        await client.close();
      }
    });
  }
});
