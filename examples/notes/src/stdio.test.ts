import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { describe, expect, it } from "vitest";

const serverPath = fileURLToPath(new URL("../dist/main.js", import.meta.url));

describe.each([
  ["handshake era", "legacy" as const],
  ["stateless era", { pin: "2026-07-28" as const }],
])("notes over stdio with the official client (%s)", (_era, mode) => {
  it("uses tools, resources, the template and prompts", async () => {
    const client = new Client({ name: "notes-test", version: "1.0.0" }, { versionNegotiation: { mode } });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [serverPath], stderr: "pipe" }));
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(["add", "remove", "search"]);
      const added = await client.callTool({ name: "add", arguments: { title: "Call Ana", body: "about the demo" } });
      expect(added.structuredContent).toEqual({ id: "3", count: 3 });
      expect((await client.callTool({ name: "add", arguments: { title: "" } })).isError).toBe(true);

      const { resources } = await client.listResources();
      expect(resources.map((r) => r.uri)).toEqual([
        "notes://all",
        "notes://tags",
        "notes://1",
        "notes://2",
        "notes://3",
      ]);
      expect((await client.listResourceTemplates()).resourceTemplates[0]).toMatchObject({
        uriTemplate: "notes://{id}",
      });
      const note = await client.readResource({ uri: "notes://3" });
      expect(JSON.parse((note.contents[0] as { text: string }).text)).toEqual({
        title: "Call Ana",
        body: "about the demo",
        tags: [],
      });

      const { prompts } = await client.listPrompts();
      expect(prompts.map((p) => p.name)).toEqual(["summarise", "review"]);
      expect(prompts[0]?.arguments).toEqual([
        { name: "topic", description: "what the summary is about", required: true },
        { name: "style", description: "brief (default) or detailed", required: false },
      ]);
      const review = await client.getPrompt({ name: "review", arguments: { id: "2" } });
      expect(review.messages).toHaveLength(2);
    } finally {
      await client.close();
    }
  });
});
