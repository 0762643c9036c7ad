import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { type AnySchema, createServer } from "@toolsmith/core";
import { type HttpServer, listen } from "@toolsmith/transport-http";
import { toStandardJsonSchema } from "@valibot/to-json-schema";
import { type } from "arktype";
import * as v from "valibot";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { ERAS } from "./peer.js";

// The same tool written in zod, ArkType and Valibot, driven by the official client over HTTP in both eras: the
// client lists one JSON Schema for all three, gets the same structured result, and reads the same refusal.

const INPUTS: [string, AnySchema][] = [
  ["zod", z.object({ city: z.string().describe("Where"), days: z.number().int().optional() })],
  ["ark", type({ city: type.string.describe("Where"), "days?": "number.integer" })],
  [
    "vali",
    toStandardJsonSchema(
      v.object({ city: v.pipe(v.string(), v.description("Where")), days: v.optional(v.pipe(v.number(), v.integer())) }),
    ),
  ],
];
const OUTPUTS: Record<string, AnySchema> = {
  zod: z.object({ summary: z.string() }),
  ark: type({ summary: "string" }),
  vali: toStandardJsonSchema(v.object({ summary: v.string() })),
};

let listener: HttpServer;

beforeAll(async () => {
  const server = createServer({ name: "standard-schema", version: "1.0.0" });
  for (const [name, input] of INPUTS) {
    server.tool({
      name,
      description: `Forecast (${name})`,
      input,
      output: OUTPUTS[name],
      handler: (args) => {
        const { city, days } = args as { city: string; days?: number };
        return { summary: `${days ?? 1} day(s) in ${city}` };
      },
    });
  }
  listener = await listen(server, { port: 0, log: null });
});
afterAll(() => listener.close());

describe.each(ERAS)("Standard Schema tools through the official client over HTTP: %s", (_era, mode) => {
  let client: Client;
  beforeAll(async () => {
    client = new Client({ name: "standard-schema", version: "1.0.0" }, { versionNegotiation: { mode } });
    await client.connect(new StreamableHTTPClientTransport(new URL(listener.url)));
  });
  afterAll(() => client.close());

  it("lists one input and output JSON Schema for the zod, ArkType and Valibot tools", async () => {
    const { tools } = await client.listTools();
    for (const name of ["ark", "vali"]) {
      const tool = tools.find((one) => one.name === name);
      expect(tool?.inputSchema).toEqual({
        type: "object",
        properties: { city: { type: "string", description: "Where" }, days: { type: "integer" } },
        required: ["city"],
      });
      expect(tool?.outputSchema).toEqual({
        type: "object",
        properties: { summary: { type: "string" } },
        required: ["summary"],
      });
    }
    const zod = tools.find((one) => one.name === "zod");
    expect(zod?.inputSchema).toMatchObject({ properties: { city: { type: "string", description: "Where" } } });
  });

  it.each(INPUTS.map(([name]) => name))(
    "%s: the same call gets the same result, the same bad call the same text",
    async (name) => {
      expect(await client.callTool({ name, arguments: { city: "Oslo", days: 2 } })).toMatchObject({
        structuredContent: { summary: "2 day(s) in Oslo" },
      });
      const refused = await client.callTool({ name, arguments: { days: "two" } });
      expect(refused.isError).toBe(true);
      const [first] = refused.content as { type: string; text: string }[];
      const [head, ...lines] = first?.text.split("\n") ?? [];
      expect(head).toBe(`Invalid arguments for tool "${name}":`);
      expect(lines.sort()).toEqual(["- city: required (expected string)", "- days: expected number, received string"]);
    },
  );
});
