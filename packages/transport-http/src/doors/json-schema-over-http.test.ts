import { createServer as createNodeServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createServer } from "@toolsmith/core";
import { jsonSchema } from "@toolsmith/core/json-schema";
import { afterEach, describe, expect, it } from "vitest";
import { createHttpHandler, nodeListener } from "../index.js";

// A tool whose input and output are raw JSON Schemas (@toolsmith/core/json-schema), driven by the official client in
// both eras: it lists the schemas as written, checks structuredContent against the output schema with its own
// validator, and reads our refusal of bad arguments.

const INPUT = {
  type: "object",
  properties: { city: { type: "string" }, days: { type: "integer", minimum: 1, default: 1 } },
  required: ["city"],
  additionalProperties: false,
} as const;
const OUTPUT = {
  type: "object",
  properties: { city: { type: "string" }, days: { type: "integer" } },
  required: ["city", "days"],
} as const;

function fixture() {
  const server = createServer({ name: "raw-json-schema", version: "1.0.0" });
  server.tool({
    name: "forecast",
    description: "The weather for a city",
    input: jsonSchema(INPUT),
    output: jsonSchema(OUTPUT),
    handler: ({ city, days }) => ({ city, days }),
  });
  return server;
}

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function connect(mode: "legacy" | { pin: "2026-07-28" }): Promise<Client> {
  const handler = createHttpHandler(fixture());
  const http: Server = createNodeServer(nodeListener(handler));
  const url = await new Promise<string>((resolve, reject) => {
    http.once("error", reject);
    http.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`));
  });
  cleanup.push(
    () =>
      new Promise((resolve) => {
        handler.close();
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  );
  const client = new Client({ name: "raw-json-schema-test", version: "1.0.0" }, { versionNegotiation: { mode } });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  cleanup.push(() => client.close());
  return client;
}

describe.each([
  ["handshake era", "legacy" as const],
  ["2026-07-28", { pin: "2026-07-28" as const }],
])("a raw JSON Schema tool with the official client (%s)", (_era, mode) => {
  it("lists the schemas as written and calls the tool, defaults filled in", async () => {
    const client = await connect(mode);
    const { tools } = await client.listTools();
    expect(tools[0]?.inputSchema).toEqual(INPUT);
    expect(tools[0]?.outputSchema).toEqual(OUTPUT);
    const result = await client.callTool({ name: "forecast", arguments: { city: "Oslo" } });
    expect(result.structuredContent).toEqual({ city: "Oslo", days: 1 });
    expect(result.isError).toBeFalsy();
  });

  it("answers bad arguments with an isError naming the field", async () => {
    const client = await connect(mode);
    await client.listTools();
    const result = await client.callTool({ name: "forecast", arguments: { city: "Oslo", days: 0 } });
    expect(result.isError).toBe(true);
    expect(result.content).toEqual([
      { type: "text", text: 'Invalid arguments for tool "forecast":\n- days: must be >= 1' },
    ]);
  });
});
