import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cleanEnv, INSPECTOR, NODE22, ok, WORKSPACE } from "./process.test-util.js";

// The MCP Inspector CLI (a real peer, on Node 22) against issue 18's servers as built: the MCP Apps example and tools
// written in ArkType and raw JSON Schema. Needs `npx -y pnpm@12.4.2 run build` first.
const root = mkdtempSync(join(tmpdir(), "inspector-peers-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

async function inspect(script: string, ...args: string[]): Promise<Record<string, unknown>> {
  const target = [process.execPath, join(WORKSPACE, script)];
  const env = cleanEnv({ MCP_CATALOG_PATH: join(root, "inspector-catalog.json") });
  const { stdout } = await ok(NODE22, [INSPECTOR, "--cli", ...target, "--method", ...args], root, env);
  return JSON.parse(stdout) as Record<string, unknown>;
}

describe("the Inspector CLI and examples/poll", () => {
  const poll = "examples/poll/dist/main.js";

  it("lists show_poll with its _meta.ui link", async () => {
    const { tools } = (await inspect(poll, "tools/list")) as { tools: { name: string; _meta?: unknown }[] };
    expect(tools.find((tool) => tool.name === "show_poll")?._meta).toMatchObject({
      ui: { resourceUri: "ui://poll/view.html" },
    });
  });

  it("reads the ui:// page as an MCP App", async () => {
    const { contents } = (await inspect(poll, "resources/read", "--uri", "ui://poll/view.html")) as {
      contents: { uri: string; mimeType: string; text: string }[];
    };
    expect(contents).toHaveLength(1);
    expect(contents[0]).toMatchObject({ uri: "ui://poll/view.html", mimeType: "text/html;profile=mcp-app" });
    expect(contents[0]?.text).toMatch(/^<!doctype html>/);
  });
});

describe("the Inspector CLI and tools written in ArkType and raw JSON Schema", () => {
  const server = "tests/transports/dist/schema-libraries-server.js";

  it("lists both input schemas as docs/schemas.md shows them", async () => {
    const { tools } = (await inspect(server, "tools/list")) as { tools: { name: string; inputSchema: unknown }[] };
    const city = { type: "string", description: "Where" };
    expect(tools.find((tool) => tool.name === "ark")?.inputSchema).toEqual({
      type: "object",
      properties: { city, days: { type: "integer" } },
      required: ["city"],
    });
    expect(tools.find((tool) => tool.name === "raw")?.inputSchema).toEqual({
      type: "object",
      properties: { city, days: { type: "integer", default: 1 } },
      required: ["city"],
      additionalProperties: false,
    });
  });

  it.each(["ark", "raw"])("%s: a call with the Inspector's typed arguments is answered", async (name) => {
    const args = ["--tool-arg", "city=Oslo", "--tool-arg", "days=3"];
    expect(await inspect(server, "tools/call", "--tool-name", name, ...args)).toMatchObject({
      structuredContent: { summary: "3 day(s) in Oslo" },
      isError: false,
    });
  });

  it("raw: the schema's default fills in what the Inspector leaves out", async () => {
    expect(await inspect(server, "tools/call", "--tool-name", "raw", "--tool-arg", "city=Oslo")).toMatchObject({
      structuredContent: { summary: "1 day(s) in Oslo" },
    });
  });
});
