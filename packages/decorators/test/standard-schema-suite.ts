// Decorated methods whose schemas come from ArkType and Valibot (Standard JSON Schema): typed with Args<…>, listed and
// refused as zod's are. Run in both decorator dialects (see dialect-suite.ts).
import { createTestClient } from "@toolsmith/core/testing";
import { type Args, McpServer, prompt, resource, tool } from "@toolsmith/decorators";
import { toStandardJsonSchema } from "@valibot/to-json-schema";
import { type } from "arktype";
import * as v from "valibot";
import { describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { DIALECT } from "./dialect-suite.js";

const ZodTrip = z.object({ to: z.string(), seats: z.number().int().optional() });
const ArkTrip = type({ to: "string", "seats?": "number.integer" });
const ValiTrip = toStandardJsonSchema(v.object({ to: v.string(), seats: v.optional(v.pipe(v.number(), v.integer())) }));
const ArkTotal = type({ total: "number" });
const ArkBrief = type({ topic: "string" });
const ValiNote = toStandardJsonSchema(v.object({ id: v.string() }));

class Desk extends McpServer {
  name = "desk";
  version = "1";

  @tool({ description: "Book with zod", input: ZodTrip })
  zod({ to, seats }: Args<typeof ZodTrip>) {
    return `${seats ?? 1} to ${to}`;
  }

  @tool({ description: "Book with ArkType", input: ArkTrip })
  ark({ to, seats }: Args<typeof ArkTrip>) {
    return `${seats ?? 1} to ${to}`;
  }

  @tool({ description: "Book with Valibot", input: ValiTrip })
  vali({ to, seats }: Args<typeof ValiTrip>) {
    return `${seats ?? 1} to ${to}`;
  }

  @tool({ description: "Totals", input: ArkTrip, output: ArkTotal })
  total({ seats }: Args<typeof ArkTrip>) {
    return { total: seats ?? 0 };
  }

  @prompt({ description: "Brief", args: ArkBrief })
  brief({ topic }: Args<typeof ArkBrief>) {
    return `Brief me on ${topic}`;
  }

  @resource("notes://{id}", { input: ValiNote })
  note({ id }: Args<typeof ValiNote>) {
    return `note ${id}`;
  }
}

describe(`Standard Schema in decorators (${DIALECT})`, () => {
  it("Args<…> types a method from an ArkType or Valibot schema as from zod", () => {
    expectTypeOf<Args<typeof ArkTrip>>().toEqualTypeOf<{ to: string; seats?: number }>();
    expectTypeOf<Args<typeof ValiTrip>>().toEqualTypeOf<{ to: string; seats?: number | undefined }>();
    expectTypeOf<Args<typeof ZodTrip>>().toEqualTypeOf<{ to: string; seats?: number | undefined }>();
  });

  it("the same tool in zod, ArkType and Valibot is listed alike and refused with the same text", async () => {
    const client = await createTestClient(new Desk());
    const tools = await client.listTools();
    const schemaOf = (name: string) => tools.find((one) => one.name === name)?.inputSchema;
    for (const name of ["ark", "vali"]) {
      expect(schemaOf(name)).toEqual({
        type: "object",
        properties: { to: { type: "string" }, seats: { type: "integer" } },
        required: ["to"],
      });
    }
    expect(schemaOf("zod")).toMatchObject({ properties: { to: { type: "string" } }, required: ["to"] });
    for (const name of ["zod", "ark", "vali"]) {
      expect(await client.callTool(name, { to: "Oslo", seats: 2 })).toMatchObject({ content: [{ text: "2 to Oslo" }] });
      const refused = await client.callTool(name, { seats: "two" });
      expect(refused.isError).toBe(true);
      const lines = (refused.content[0] as { text: string }).text.split("\n");
      expect(lines[0]).toBe(`Invalid arguments for tool "${name}":`);
      expect(lines.slice(1).sort()).toEqual([
        "- seats: expected number, received string",
        "- to: required (expected string)",
      ]);
    }
  });

  it("an ArkType output, prompt and a Valibot template input work from decorators", async () => {
    const client = await createTestClient(new Desk());
    expect(await client.callTool("total", { to: "Oslo", seats: 3 })).toMatchObject({ structuredContent: { total: 3 } });
    expect((await client.getPrompt("brief", { topic: "tea" })).messages[0]?.content).toEqual({
      type: "text",
      text: "Brief me on tea",
    });
    expect(await client.readResource("notes://7")).toMatchObject({ contents: [{ text: "note 7" }] });
  });
});
