import { type AnySchema, createServer } from "@toolsmith/core";
import { jsonSchema } from "@toolsmith/core/json-schema";
import { serveStdio } from "@toolsmith/transport-stdio";
import { toStandardJsonSchema } from "@valibot/to-json-schema";
import { type } from "arktype";
import * as v from "valibot";

// Served over stdio to standard-schema.stdio.test.ts: ArkType, Valibot and raw JSON Schema tools, an MCP App, and a tool that says
// the trace context it was called with.

const INPUTS: [string, AnySchema][] = [
  ["ark", type({ city: type.string.describe("Where"), "days?": "number.integer" })],
  [
    "vali",
    toStandardJsonSchema(
      v.object({ city: v.pipe(v.string(), v.description("Where")), days: v.optional(v.pipe(v.number(), v.integer())) }),
    ),
  ],
  [
    "raw",
    jsonSchema({
      type: "object",
      properties: { city: { type: "string", description: "Where" }, days: { type: "integer" } },
      required: ["city"],
    }),
  ],
];

const server = createServer({ name: "standard-schema-stdio", version: "1.0.0" });
for (const [name, input] of INPUTS) {
  server.tool({
    name,
    description: `Forecast (${name})`,
    input,
    handler: (args) => {
      const { city, days } = args as { city: string; days?: number };
      return `${days ?? 1} day(s) in ${city}`;
    },
  });
}
server.tool({
  name: "chart",
  description: "Draws a chart",
  ui: { html: "<!doctype html><p>chart</p>", csp: { connectDomains: ["https://api.example.com"] } },
  handler: () => "drawn",
});
server.tool({
  name: "traced",
  description: "Says its trace",
  handler: (_args, ctx) => ctx.trace?.traceparent ?? "none",
});
serveStdio(server);
