import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { AuthInfo, RequestContext } from "../context/context.js";
import type { Operation } from "../middleware/compose.js";
import type { ServerOptions } from "../server/options.js";
import { createServer } from "../server/server.js";
import { createTestClient } from "../testing/client.js";
import { rpcError } from "../testing/expect-errors.test-util.js";
import { DefinitionError } from "../wire/errors.js";
import { tokenize } from "./tool-rank.js";

const admin: AuthInfo = { subject: "ada", scopes: ["admin"] };
const reader: AuthInfo = { subject: "rob", scopes: ["read"] };
const isAdmin = (ctx: RequestContext) => ctx.auth?.scopes.includes("admin") === true;

function server(toolSearch: ServerOptions["toolSearch"] = true, seen: string[] = []) {
  const s = createServer({ name: "search", version: "1", toolSearch });
  s.use((op: Operation, next) => {
    seen.push(`${op.method} ${op.name ?? ""}`);
    return next();
  });
  s.tool({
    name: "createIssue",
    description: "Open a new issue in a repository",
    input: z.object({ title: z.string(), body: z.string().optional() }),
    handler: ({ title }) => `opened ${title}`,
  });
  s.tool({ name: "list_pull_requests", description: "List pull requests of a repository", handler: () => "prs" });
  s.tool({
    name: "wipe-repository",
    description: "Delete a repository for good",
    guard: isAdmin,
    handler: () => "wiped",
  });
  s.tool({ name: "ping", description: "Answer pong", handler: () => "pong" });
  return s;
}

function found(result: { content: unknown[] }): string[] {
  const text = (result.content[0] as { text: string }).text;
  return text.startsWith("{") ? (JSON.parse(text) as { tools: { name: string }[] }).tools.map((tool) => tool.name) : [];
}

describe("tokenize", () => {
  it("splits camelCase, snake_case, kebab-case and paths, lower-cases, stems and drops stop words", () => {
    expect(tokenize("createIssue list_pull_requests wipe-repository repos/get")).toEqual([
      "creat",
      "issu",
      "list",
      "pull",
      "request",
      "wip",
      "repository",
      "repo",
      "get",
    ]);
    expect(tokenize("Show me the merged branches")).toEqual(["merg", "branch"]);
  });

  it("drops links, keeps letters of any script with accents folded, and splits on everything else", () => {
    expect(tokenize("See [the docs](https://docs.example.com/managing-notifications) or http://x.io/a-b")).toEqual([
      "see",
      "doc",
    ]);
    expect(tokenize("Créer un ticket RÉSUMÉ")).toEqual(["creer", "un", "ticket", "resum"]);
    expect(tokenize("Задача für 東京 issue")).toEqual(["задача", "fur", "東京", "issu"]);
    // Long runs a link pattern would backtrack on are cut in one pass (a description may be any size).
    expect(tokenize(`${"a-".repeat(500_000)}://x`)).toEqual([]);
    expect(tokenize(`ok ${"](".repeat(500_000)}`)).toEqual(["ok"]);
    expect(tokenize(`${"b.".repeat(300_000)} done`)).toHaveLength(300_001);
    // Emoji, zero-width and direction marks, regex and markup are separators, never patterns.
    expect(tokenize("🚀\u200b\u202eissue(a+)+$ .* \\ <script>")).toEqual(["issu", "script"]);
  });
});

describe.each(["2025-11-25", "2026-07-28"] as const)("tool search in %s", (protocolVersion) => {
  it("lists the search and call tools (and pinned ones the caller sees) instead of every tool", async () => {
    const plain = await createTestClient(server(), { protocolVersion, auth: reader });
    const listed = await plain.listTools();
    expect(listed.map((tool) => tool.name)).toEqual(["search_tools", "call_tool"]);
    // No tool here runs as a task, so neither does the call tool (tests/tool-search: one that does).
    expect(listed[1]).not.toHaveProperty("execution");
    const pinned = server({ pinned: ["ping", "wipe-repository"] });
    const asReader = await createTestClient(pinned, { protocolVersion, auth: reader });
    expect((await asReader.listTools()).map((tool) => tool.name)).toEqual(["search_tools", "call_tool", "ping"]);
    const asAdmin = await createTestClient(pinned, { protocolVersion, auth: admin });
    expect((await asAdmin.listTools()).map((tool) => tool.name)).toEqual([
      "search_tools",
      "call_tool",
      "wipe-repository",
      "ping",
    ]);
  });

  it("finds tools by words of their names, descriptions and arguments, with their input schemas", async () => {
    const client = await createTestClient(server({ ranking: "fields" }), { protocolVersion, auth: admin });
    const result = await client.callTool("search_tools", { query: "open an issue" });
    expect(found(result)[0]).toBe("createIssue");
    const first = JSON.parse((result.content[0] as { text: string }).text).tools[0];
    expect(first.inputSchema).toMatchObject({ properties: { title: { type: "string" } }, required: ["title"] });
    expect(found(await client.callTool("search_tools", { query: "pull requests" }))).toEqual(["list_pull_requests"]);
    expect(found(await client.callTool("search_tools", { query: "title" }))).toEqual(["createIssue"]);
    expect(found(await client.callTool("search_tools", { query: "repository", limit: 1 }))).toHaveLength(1);
    const none = await client.callTool("search_tools", { query: "zebra" });
    expect(none.isError).toBeUndefined();
    expect(found(none)).toEqual([]);
  });

  it("searches only what the caller may see: a guarded tool is never found", async () => {
    const asReader = await createTestClient(server(), { protocolVersion, auth: reader });
    expect(found(await asReader.callTool("search_tools", { query: "delete repository wipe" }))).not.toContain(
      "wipe-repository",
    );
    const asAdmin = await createTestClient(server(), { protocolVersion, auth: admin });
    expect(found(await asAdmin.callTool("search_tools", { query: "delete repository wipe" }))[0]).toBe(
      "wipe-repository",
    );
  });

  it("calls the named tool as tools/call would: validation, guards and middleware see that tool", async () => {
    const seen: string[] = [];
    const asReader = await createTestClient(server(true, seen), { protocolVersion, auth: reader });
    const call = (name: string, args?: unknown) => asReader.callTool("call_tool", { name, arguments: args });
    expect(await call("createIssue", { title: "bug" })).toMatchObject({ content: [{ text: "opened bug" }] });
    expect(seen).toContain("tools/call createIssue");
    expect(seen).not.toContain("tools/call call_tool");
    const invalid = await call("createIssue", { title: 7 });
    const direct = await asReader.callTool("createIssue", { title: 7 });
    expect(invalid).toEqual(direct);
    // A guarded tool is answered exactly as a missing one, through call_tool as through tools/call.
    const hidden = await rpcError(call("wipe-repository"));
    const missing = await rpcError(call("nope"));
    expect({ code: hidden.code, message: hidden.message.replace("wipe-repository", "X") }).toEqual({
      code: missing.code,
      message: missing.message.replace("nope", "X"),
    });
    expect(missing).toMatchObject(await rpcError(asReader.callTool("nope")));
    // Unwrapped once: call_tool naming itself is a tool that does not exist, never a loop.
    const nested = await rpcError(call("call_tool", { name: "ping" }));
    expect({ code: nested.code, message: nested.message.replace("call_tool", "X") }).toEqual({
      code: missing.code,
      message: missing.message.replace("nope", "X"),
    });
    const asAdmin = await createTestClient(server(), { protocolVersion, auth: admin });
    expect(await asAdmin.callTool("call_tool", { name: "wipe-repository" })).toMatchObject({
      content: [{ text: "wiped" }],
    });
  });

  it("bounds queries: too long, too many words, a bad limit or no query is an error result the model reads", async () => {
    const client = await createTestClient(server({ maxQueryChars: 100, maxQueryTerms: 4 }), { protocolVersion });
    const text = async (args: Record<string, unknown>) => {
      const result = await client.callTool("search_tools", args);
      expect(result.isError).toBe(true);
      return (result.content[0] as { text: string }).text;
    };
    expect(await text({ query: "x".repeat(101) })).toMatch(/at most 100 characters, not 101/);
    expect(await text({ query: "one two three four five" })).toMatch(/at most 4 words, not 5/);
    expect(await text({ query: "issue", limit: 21 })).toMatch(/limit: a whole number from 1 to 20/);
    expect(await text({ query: "issue", limit: 1.5 })).toMatch(/limit/);
    expect(await text({ query: "   " })).toMatch(/query/);
    expect(await text({})).toMatch(/query/);
    // Regex and markup are words like any other: nothing of the query runs.
    const hostile = await client.callTool("search_tools", { query: "(a+)+$ .* \\ <script>" });
    expect(hostile.isError).toBeUndefined();
    expect(found(await client.callTool("search_tools", { query: "issue" }))).toEqual(["createIssue"]);
  });

  it("answers hostile queries at once with an error result or a plain answer, and serves on", async () => {
    const s = server();
    s.tool({ name: "ticket", description: "Créer un ticket de support", handler: () => "créé" });
    const client = await createTestClient(s, { protocolVersion, auth: admin });
    const text = async (args: Record<string, unknown>) => {
      const result = await client.callTool("search_tools", args);
      return { error: result.isError === true, text: (result.content[0] as { text: string }).text };
    };
    // A megabyte is refused on its length, before any word of it is read.
    expect(await text({ query: "issue ".repeat(200_000) })).toEqual({
      error: true,
      text: "query: at most 500 characters, not 1200000; say it in fewer words",
    });
    // Characters are code points: 300 emoji are 300 characters (600 UTF-16 units), 501 too many.
    expect((await text({ query: "🚀".repeat(300) })).error).toBe(false);
    expect(await text({ query: "🚀".repeat(501) })).toMatchObject({ error: true, text: /not 501;/ });
    // Many words: refused past 32 once tokenised, whatever their script.
    expect(await text({ query: Array.from({ length: 33 }, (_, i) => `mot${i}`).join(" ") })).toMatchObject({
      error: true,
      text: /at most 32 words, not 33/,
    });
    expect(await text({ query: "Задача ".repeat(33) })).toMatchObject({ error: true, text: /not 33/ });
    // Not text: refused as such.
    for (const query of [42, ["issue"], { $regex: ".*" }, null])
      expect(await text({ query })).toMatchObject({ error: true, text: /query: give what you want to do/ });
    expect(await text({ query: "issue", limit: "5" })).toMatchObject({ error: true, text: /limit/ });
    // Unicode: accents folded on both sides, so a query without them finds the tool with them.
    expect(found(await client.callTool("search_tools", { query: "creer un ticket" }))[0]).toBe("ticket");
    expect(found(await client.callTool("search_tools", { query: "CRÉER TICKET" }))[0]).toBe("ticket");
    // Nothing but separators, stop words or unknown scripts: no match, not an error.
    for (const query of ["🚀🚀", "\u200b\u202e", "the of and", "(.*)+$", "東京"])
      expect(await text({ query })).toEqual({ error: false, text: `No tool matches "${query}": try other words.` });
    expect(found(await client.callTool("search_tools", { query: "issue" }))).toEqual(["createIssue"]);
  });

  it("refuses bad options at createServer", () => {
    expect(() => server({ maxResults: 0 })).toThrow(DefinitionError);
    expect(() => server({ ranking: "regex" as never })).toThrow(/bm25/);
    expect(() => server({ names: { search: "x", call: "x" } })).toThrow(/two names/);
  });
});
