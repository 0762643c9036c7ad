import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ERAS } from "./peer.js";

// ArkType, Valibot and raw JSON Schema tools, an MCP App and _meta.traceparent, through the official client over real stdio, in both
// eras: the built server (npx -y pnpm@12.4.2 run build) is spawned per era.
const SERVER = fileURLToPath(new URL("../dist/standard-schema-server.js", import.meta.url));
if (!existsSync(SERVER)) throw new Error(`${SERVER} is missing: build with npx -y pnpm@12.4.2 run build`);

const TRACEPARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

describe.each(ERAS)("over stdio through the official client: %s", (_era, mode) => {
  let client: Client;
  const stderr: string[] = [];
  beforeAll(async () => {
    client = new Client({ name: "standard-schema-stdio", version: "1.0.0" }, { versionNegotiation: { mode } });
    const transport = new StdioClientTransport({ command: process.execPath, args: [SERVER], stderr: "pipe" });
    transport.stderr?.on("data", (chunk: Buffer) => stderr.push(chunk.toString("utf8")));
    await client.connect(transport);
  });
  afterAll(async () => {
    await client.close();
    expect(stderr.join("")).toBe("");
  });

  it("lists the ArkType, Valibot and raw JSON Schema tools' one JSON Schema, and calls them alike", async () => {
    const { tools } = await client.listTools();
    for (const name of ["ark", "vali", "raw"]) {
      expect(tools.find((one) => one.name === name)?.inputSchema).toEqual({
        type: "object",
        properties: { city: { type: "string", description: "Where" }, days: { type: "integer" } },
        required: ["city"],
      });
      expect(await client.callTool({ name, arguments: { city: "Oslo", days: 2 } })).toMatchObject({
        content: [{ type: "text", text: "2 day(s) in Oslo" }],
      });
      const refused = await client.callTool({ name, arguments: { days: "two" } });
      expect(refused.isError).toBe(true);
      const text = (refused.content as { text: string }[])[0]?.text.split("\n").slice(1).sort();
      // Ajv stops at the first failure (docs/schemas.md), the others tell each.
      const both = ["- city: required (expected string)", "- days: expected number, received string"];
      expect(text).toEqual(name === "raw" ? both.slice(0, 1) : both);
    }
  });

  it("links the app from its tool, lists it and serves its page", async () => {
    const { tools } = await client.listTools();
    const uri = "ui://chart/app.html";
    expect(tools.find((one) => one.name === "chart")?._meta).toMatchObject({ ui: { resourceUri: uri } });
    const { resources } = await client.listResources();
    expect(resources.find((one) => one.uri === uri)).toMatchObject({ mimeType: "text/html;profile=mcp-app" });
    expect((await client.readResource({ uri })).contents).toEqual([
      {
        uri,
        mimeType: "text/html;profile=mcp-app",
        text: "<!doctype html><p>chart</p>",
        _meta: { ui: { csp: { connectDomains: ["https://api.example.com"] } } },
      },
    ]);
  });

  it("hands the call's _meta.traceparent to the handler as ctx.trace", async () => {
    const result = await client.callTool({ name: "traced", arguments: {}, _meta: { traceparent: TRACEPARENT } });
    expect(result.content).toEqual([{ type: "text", text: TRACEPARENT }]);
  });
});
