// A raw JSON Schema (@toolsmith/core/json-schema) as a decorated method's input and output: typed through Args<…>,
// listed as written, validated by Ajv. Run in both decorator dialects (see dialect-suite.ts).
import { jsonSchema } from "@toolsmith/core/json-schema";
import { createTestClient } from "@toolsmith/core/testing";
import { type Args, McpServer, tool } from "@toolsmith/decorators";
import { describe, expect, expectTypeOf, it } from "vitest";
import { DIALECT } from "./dialect-suite.js";

const Weather = jsonSchema({
  type: "object",
  properties: { city: { type: "string" }, days: { type: "integer", default: 1 } },
  required: ["city"],
});
const Report = jsonSchema({ type: "object", properties: { text: { type: "string" } }, required: ["text"] });

export class WeatherDesk extends McpServer {
  name = "weather";
  version = "1";

  @tool({ description: "The weather for a city", input: Weather, output: Report })
  forecast({ city, days }: Args<typeof Weather>) {
    expectTypeOf(days).toEqualTypeOf<number>();
    return { text: `${city}: sunny for ${days} day(s)` };
  }

  // @ts-expect-error: the schema gives a string, the method wants a number
  @tool({ description: "wrong type", input: Weather })
  wrongType({ city }: { city: number }) {
    return String(city);
  }
}

describe(`a raw JSON Schema on a decorated tool (${DIALECT})`, () => {
  it("is listed as written and validated, its default filled in", async () => {
    const client = await createTestClient(new WeatherDesk());
    const [tool] = await client.listTools();
    expect(tool?.inputSchema).toEqual(Weather["~standard"].jsonSchema.input({ target: "draft-2020-12" }));
    expect((await client.callTool("forecast", { city: "Oslo" })).structuredContent).toEqual({
      text: "Oslo: sunny for 1 day(s)",
    });
    expect((await client.callTool("forecast", {})).content).toEqual([
      { type: "text", text: 'Invalid arguments for tool "forecast":\n- city: required (expected string)' },
    ]);
  });
});
