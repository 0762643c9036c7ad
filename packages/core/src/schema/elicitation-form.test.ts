import { describe, expect, it } from "vitest";
import { z } from "zod";
import * as z3 from "zod/v3";
import { createServer } from "../server/server.js";
import { createTestClient } from "../testing/client.js";
import type { InputSchema } from "./schema-adapter.js";
import "./zod-v3.js";

// Elicitation forms are flat (the spec's PrimitiveSchemaDefinition): a nested one is refused in the handler, before
// anything reaches the client; multi-select enums (arrays of enum values) stay.

type Form = { schema: InputSchema } | { requestedSchema: Record<string, unknown> };

function serverAsking(form: Form) {
  const s = createServer({ name: "forms", version: "1" });
  s.tool({
    name: "ask",
    description: "Asks with the form under test",
    handler: async (_args, ctx) => (await ctx.elicit({ message: "Details?", ...form } as never)).action,
  });
  return s;
}

const CONTACT = { type: "object", properties: { name: { type: "string" } }, required: ["name"] };

const NESTED: [string, string, Form][] = [
  ["zod v4: an array of objects", "contacts", { schema: { contacts: z.array(z.object({ name: z.string() })) } }],
  ["zod v4: an object", "address", { schema: { address: z.object({ city: z.string() }) } }],
  ["zod v4: an array of arrays", "grid", { schema: { grid: z.array(z.array(z.enum(["a", "b"]))) } }],
  ["zod v4: an array of free strings", "tags", { schema: { tags: z.array(z.string()) } }],
  ["zod v4: a record", "extra", { schema: { extra: z.record(z.string(), z.string()) } }],
  [
    "zod v3: an array of objects",
    "contacts",
    { schema: z3.object({ contacts: z3.array(z3.object({ name: z3.string() })) }) },
  ],
  ["zod v3: an object", "address", { schema: { address: z3.object({ city: z3.string() }) } }],
  [
    "raw JSON Schema: an array of objects",
    "contacts",
    { requestedSchema: { type: "object", properties: { contacts: { type: "array", items: CONTACT } } } },
  ],
  ["raw JSON Schema: an object", "address", { requestedSchema: { type: "object", properties: { address: CONTACT } } }],
  [
    "raw JSON Schema: an array without items",
    "anything",
    { requestedSchema: { type: "object", properties: { anything: { type: "array" } } } },
  ],
  [
    "raw JSON Schema: a multi-select of objects under anyOf",
    "picks",
    { requestedSchema: { type: "object", properties: { picks: { type: "array", items: { anyOf: [CONTACT] } } } } },
  ],
  ...(
    [
      ["a string whose allOf holds an object", { type: "string", allOf: [CONTACT] }],
      ["a string whose anyOf holds an object", { type: "string", anyOf: [{ type: "object" }] }],
      ["a string whose oneOf holds an object", { type: "string", oneOf: [CONTACT] }],
      ["a string with items of objects", { type: "string", items: CONTACT }],
      ["a string with additionalProperties", { type: "string", additionalProperties: CONTACT }],
      ["a string with patternProperties", { type: "string", patternProperties: { ".*": CONTACT } }],
      ["a string with not / if / else", { type: "string", not: CONTACT, if: CONTACT, else: CONTACT }],
      ["a $ref", { $ref: "#/properties/other" }],
      ["an enum of objects", { type: "string", enum: [{ city: "Paris" }, ["x"]] }],
      ["titled choices that hold schemas", { type: "string", oneOf: [{ const: "a", properties: { b: CONTACT } }] }],
      ["a multi-select with prefixItems of objects", { type: "array", items: { enum: ["a"] }, prefixItems: [CONTACT] }],
      ["a multi-select whose items hold an object", { type: "array", items: { enum: ["a"], anyOf: [CONTACT] } }],
    ] as const
  ).map(([what, property]): [string, string, Form] => [
    `raw JSON Schema: ${what}`,
    "field",
    { requestedSchema: { type: "object", properties: { field: property } } },
  ]),
  ["zod v4: a tuple", "pair", { schema: { pair: z.tuple([z.enum(["a"]), z.enum(["b"])]) } }],
  ["zod v4: a string with an intersected object", "code", { schema: { code: z.string().and(z.object({})) } }],
  ["zod v4: a string whose meta adds anyOf", "code", { schema: { code: z.string().meta({ anyOf: [CONTACT] }) } }],
  ["zod v3: a tuple", "pair", { schema: { pair: z3.tuple([z3.enum(["a"]), z3.enum(["b"])]) } }],
];

// Beside its named fields a form holds nothing: no schema for the fields it does not name, no $ref, allOf …
const BEYOND: [string, string, Form][] = [
  [
    "zod v4: a catchall of objects",
    "additionalProperties",
    { schema: z.object({ a: z.string() }).catchall(z.object({})) },
  ],
  ["zod v4: a loose object", "additionalProperties", { schema: z.looseObject({ a: z.string() }) }],
  ["zod v3: a passthrough object", "additionalProperties", { schema: z3.object({ a: z3.string() }).passthrough() }],
  ...(
    [
      ["additionalProperties", { additionalProperties: CONTACT }],
      ["patternProperties", { patternProperties: { "^x": { type: "array", items: CONTACT } } }],
      ["allOf", { allOf: [{ properties: { address: CONTACT } }] }],
      ["anyOf", { anyOf: [{ properties: { address: CONTACT } }] }],
      ["$ref", { $ref: "#/$defs/more" }],
      ["$defs", { $defs: { more: CONTACT } }],
    ] as const
  ).map(([keyword, extra]): [string, string, Form] => [
    `raw JSON Schema: ${keyword} beside the fields`,
    keyword,
    { requestedSchema: { type: "object", properties: { name: { type: "string" } }, ...extra } },
  ]),
];

describe.each(["2025-11-25", "2026-07-28"] as const)("nested elicitation forms in %s", (protocolVersion) => {
  for (const [what, field, form] of NESTED) {
    it(`${what} is refused in the handler, naming "${field}"; nothing is sent to the client`, async () => {
      let asked = 0;
      const client = await createTestClient(serverAsking(form), {
        protocolVersion,
        elicit: async () => {
          asked++;
          return { action: "accept", content: {} };
        },
      });
      const exchange = await client.exchange("tools/call", { name: "ask" });
      expect(exchange.result.isError).toBe(true);
      const text = (exchange.result.content as { text: string }[])[0]?.text;
      expect(text).toContain(`field "${field}"`);
      expect(text).toContain("multi-select (an array whose items are an enum");
      expect(exchange.rounds).toBe(0);
      expect(exchange.requests).toEqual([]);
      expect(asked).toBe(0);
      expect(client.messages.some((record) => record.line.includes("elicitation/create"))).toBe(false);
      expect(client.messages.some((record) => record.line.includes("input_required"))).toBe(false);
    });
  }
});

describe.each(["2025-11-25", "2026-07-28"] as const)("forms with more than fields in %s", (protocolVersion) => {
  for (const [what, keyword, form] of BEYOND) {
    it(`${what} is refused in the handler, naming "${keyword}"; nothing is sent to the client`, async () => {
      let asked = 0;
      const client = await createTestClient(serverAsking(form), {
        protocolVersion,
        elicit: async () => {
          asked++;
          return { action: "accept", content: {} };
        },
      });
      const exchange = await client.exchange("tools/call", { name: "ask" });
      expect(exchange.result.isError).toBe(true);
      expect((exchange.result.content as { text: string }[])[0]?.text).toContain(
        `holds a schema under "${keyword}" beside its fields`,
      );
      expect(exchange.requests).toEqual([]);
      expect(asked).toBe(0);
    });
  }

  it("additionalProperties: false beside the fields is still a flat form", async () => {
    const requestedSchema = {
      type: "object",
      properties: { name: { type: "string" } },
      additionalProperties: false,
    };
    const client = await createTestClient(serverAsking({ requestedSchema }), {
      protocolVersion,
      elicit: async () => ({ action: "accept", content: { name: "Ada" } }),
    });
    const exchange = await client.exchange("tools/call", { name: "ask" });
    expect(exchange.result.content).toEqual([{ type: "text", text: "accept" }]);
    expect(exchange.requests[0]?.params.requestedSchema).toEqual(requestedSchema);
  });
});

describe("flat elicitation forms are still sent", () => {
  it("multi-select enums from zod v4 and v3 go out as the spec spells them", async () => {
    for (const schema of [
      {
        colors: z.array(z.enum(["red", "green"])).min(1),
        sizes: z.array(z.union([z.literal("s").meta({ title: "Small" }), z.literal("l").meta({ title: "Large" })])),
      },
      { colors: z3.array(z3.enum(["red", "green"])).min(1), sizes: z3.array(z3.enum(["s", "l"])) },
    ]) {
      const client = await createTestClient(serverAsking({ schema }), {
        protocolVersion: "2025-11-25",
        elicit: async () => ({ action: "accept", content: { colors: ["red"], sizes: ["s"] } }),
      });
      const exchange = await client.exchange("tools/call", { name: "ask" });
      expect(exchange.result.content).toEqual([{ type: "text", text: "accept" }]);
      const sent = exchange.requests[0]?.params.requestedSchema as { properties: Record<string, unknown> };
      expect(sent.properties.colors).toEqual({
        type: "array",
        minItems: 1,
        items: { type: "string", enum: ["red", "green"] },
      });
      expect(sent.properties.sizes).toMatchObject({ type: "array" });
    }
  });

  it("titled multi-select from zod keeps only const and title in its items", async () => {
    const sizes = z.array(z.union([z.literal("s").meta({ title: "Small" }), z.literal("l").meta({ title: "Large" })]));
    const client = await createTestClient(serverAsking({ schema: { sizes } }), {
      protocolVersion: "2025-11-25",
      elicit: async () => ({ action: "accept", content: { sizes: ["l"] } }),
    });
    const exchange = await client.exchange("tools/call", { name: "ask" });
    expect(exchange.requests[0]?.params.requestedSchema).toEqual({
      type: "object",
      properties: {
        sizes: {
          type: "array",
          items: {
            anyOf: [
              { const: "s", title: "Small" },
              { const: "l", title: "Large" },
            ],
          },
        },
      },
      required: ["sizes"],
    });
  });

  it("a raw form with every SEP-1330 enum shape is sent exactly as written", async () => {
    const requestedSchema = {
      type: "object",
      properties: {
        single: { type: "string", enum: ["a", "b"] },
        titled: { type: "string", oneOf: [{ const: "a", title: "A" }] },
        legacy: { type: "string", enum: ["a"], enumNames: ["A"] },
        multi: { type: "array", minItems: 1, items: { type: "string", enum: ["a", "b"] } },
        titledMulti: { type: "array", items: { anyOf: [{ const: "a", title: "A" }] } },
        email: { type: "string", format: "email" },
        age: { type: "integer", minimum: 0 },
        ok: { type: "boolean", default: true },
      },
      required: [],
    };
    const client = await createTestClient(serverAsking({ requestedSchema }), {
      protocolVersion: "2026-07-28",
      elicit: async () => ({ action: "accept", content: {} }),
    });
    const exchange = await client.exchange("tools/call", { name: "ask" });
    expect(exchange.result.content).toEqual([{ type: "text", text: "accept" }]);
    expect(exchange.requests[0]?.params.requestedSchema).toEqual(requestedSchema);
  });
});

describe("elicitation forms from zod", () => {
  it("titled choices become oneOf of consts, integers lose zod's safe-integer range, defaults and descriptions stay", async () => {
    const s = createServer({ name: "forms", version: "1" });
    s.tool({
      name: "form",
      description: "Asks with a rich form",
      handler: async (_args, ctx) => {
        const answer = await ctx.elicit({
          message: "Profile",
          schema: {
            plan: z
              .union([z.literal("free").meta({ title: "Free" }), z.literal("pro").meta({ title: "Pro" })])
              .describe("Plan"),
            age: z.number().int().default(30).describe("Age"),
            tags: z
              .array(z.enum(["a", "b"]))
              .min(1)
              .optional(),
          },
        });
        return answer.action === "accept" ? `${answer.content.plan} ${answer.content.age}` : "-";
      },
    });
    const client = await createTestClient(s, {
      protocolVersion: "2025-11-25",
      elicit: async () => ({ action: "accept", content: { plan: "pro" } }),
    });
    const exchange = await client.exchange("tools/call", { name: "form" });
    expect(exchange.result.content).toEqual([{ type: "text", text: "pro 30" }]);
    expect(exchange.requests[0]?.params.requestedSchema).toEqual({
      type: "object",
      properties: {
        plan: {
          type: "string",
          oneOf: [
            { const: "free", title: "Free" },
            { const: "pro", title: "Pro" },
          ],
          description: "Plan",
        },
        age: { type: "integer", default: 30, description: "Age" },
        tags: { type: "array", items: { type: "string", enum: ["a", "b"] }, minItems: 1 },
      },
      required: ["plan"],
    });
  });

  it("a field elicitation cannot show is refused in the handler with the field's name", async () => {
    const s = createServer({ name: "forms", version: "1" });
    s.tool({
      name: "nested",
      description: "Asks for an object",
      handler: async (_args, ctx) =>
        (await ctx.elicit({ message: "?", schema: { address: z.object({ city: z.string() }) } })).action,
    });
    const client = await createTestClient(s, {
      protocolVersion: "2025-11-25",
      elicit: async () => ({ action: "accept", content: {} }),
    });
    const result = await client.callTool("nested");
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain('field \\"address\\" is an object');
  });
});
