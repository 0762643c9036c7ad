// A server whose tools are written in ArkType and in raw JSON Schema, for peers outside vitest (the Inspector CLI):
// run as a script (node dist/schema-libraries-server.js) it serves over stdio.
import { createServer } from "@toolsmith/core";
import { jsonSchema } from "@toolsmith/core/json-schema";
import { serveStdio } from "@toolsmith/transport-stdio";
import { type } from "arktype";

// The forecast tool of docs/schemas.md, once in ArkType (`ark`) and once in raw JSON Schema (`raw`).
const server = createServer({ name: "schema-libraries", version: "1.0.0" });
server.tool({
  name: "ark",
  description: "Forecast (ArkType)",
  input: type({ city: type.string.describe("Where"), "days?": "number.integer" }),
  output: type({ summary: "string" }),
  handler: ({ city, days }) => ({ summary: `${days ?? 1} day(s) in ${city}` }),
});
server.tool({
  name: "raw",
  description: "Forecast (raw JSON Schema)",
  input: jsonSchema({
    type: "object",
    properties: { city: { type: "string", description: "Where" }, days: { type: "integer", default: 1 } },
    required: ["city"],
    additionalProperties: false,
  }),
  output: jsonSchema({ type: "object", properties: { summary: { type: "string" } }, required: ["summary"] }),
  handler: ({ city, days }) => ({ summary: `${days} day(s) in ${city}` }),
});
serveStdio(server);
