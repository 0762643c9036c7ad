import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { createTestClient } from "@toolsmith/core/testing";
import { Notes } from "@toolsmith/example-notes";
import { describe, expect, it } from "vitest";
import { Workbench } from "./workbench.js";

describe.each(["2025-11-25", "2026-07-28"] as const)("workbench in %s (in memory)", (protocolVersion) => {
  it("serves both modules under their prefixes, the notes resources as they are, and its own tool", async () => {
    const client = await createTestClient(new Workbench(), { protocolVersion });
    expect((await client.listTools()).map((tool) => tool.name)).toEqual([
      "note_stats",
      "notes.add",
      "notes.remove",
      "notes.search",
      "words.word_count",
      "words.snake_case",
    ]);
    expect((await client.listPrompts()).map((prompt) => prompt.name)).toEqual(["notes.summarise", "notes.review"]);
    const added = await client.callTool("notes.add", { title: "Team Sync", body: "agenda and action items" });
    expect(added.structuredContent).toEqual({ id: "2", count: 2 });
    expect(await client.readResource("notes://2")).toMatchObject({ contents: [{ uri: "notes://2" }] });
    expect(await client.callTool("words.word_count", { text: "one two three" })).toMatchObject({
      content: [{ text: "3" }],
    });
    expect((await client.callTool("note_stats", { id: "2" })).structuredContent).toEqual({
      id: "2",
      words: 4,
      slug: "team_sync",
    });
  });

  it("answers a missing note with an isError result the model can read, not a protocol error", async () => {
    const client = await createTestClient(new Workbench(), { protocolVersion });
    expect(await client.callTool("note_stats", { id: "99" })).toMatchObject({
      content: [{ type: "text", text: "There is no note 99; read notes://all for the ids" }],
      isError: true,
    });
  });

  it("one middleware stack covers every module: the audit trail names each module's tool", async () => {
    Workbench.trail.length = 0;
    const client = await createTestClient(new Workbench(), { protocolVersion, auth: { subject: "ana", scopes: [] } });
    await client.callTool("words.snake_case", { text: "WorkBench" });
    await client.callTool("notes.search", { query: "welcome" });
    expect(Workbench.trail.map((entry) => `${entry.caller} ${entry.name} ${entry.outcome}`)).toEqual([
      "ana words.snake_case ok",
      "ana notes.search ok",
    ]);
  });
});

it("a module's list change reaches the workbench's clients", async () => {
  const notes = new Notes();
  const workbench = new Workbench(notes);
  const client = await createTestClient(workbench, { protocolVersion: "2025-11-25" });
  notes.toServer().registered("tool", "search")?.disable();
  await new Promise((resolve) => setTimeout(resolve, 0));
  expect(client.notifications.map((n) => n.method)).toEqual(["notifications/tools/list_changed"]);
  expect((await client.listTools()).map((tool) => tool.name)).not.toContain("notes.search");
});

const serverPath = fileURLToPath(new URL("../dist/main.js", import.meta.url));

describe.each([
  ["handshake era", "legacy" as const],
  ["2026-07-28", { pin: "2026-07-28" as const }],
])("workbench over stdio with the official client (%s)", (_era, mode) => {
  it("lists and calls across modules", async () => {
    const client = new Client({ name: "workbench-test", version: "1.0.0" }, { versionNegotiation: { mode } });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [serverPath], stderr: "pipe" }));
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain("words.word_count");
      expect(await client.callTool({ name: "words.word_count", arguments: { text: "a b" } })).toMatchObject({
        content: [{ type: "text", text: "2" }],
      });
      expect(await client.callTool({ name: "note_stats", arguments: { id: "1" } })).toMatchObject({
        structuredContent: { id: "1", words: 5, slug: "welcome" },
      });
      // A tool's own failure reaches the client as a result it can show the model.
      expect(await client.callTool({ name: "note_stats", arguments: { id: "99" } })).toMatchObject({
        isError: true,
        content: [{ type: "text", text: "There is no note 99; read notes://all for the ids" }],
      });
    } finally {
      await client.close();
    }
  });
});
