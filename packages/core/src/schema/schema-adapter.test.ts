import { describe, expect, it } from "vitest";
import { z } from "zod";
import * as z3 from "zod/v3";
import { createServer, type InputSchema, type ValidationIssue } from "../index.js";
import { createTestClient } from "../testing/client.js";
import { definitionError } from "../testing/expect-errors.test-util.js";
import { compileSchema, isRawShape, isSchema, zodV4Adapter } from "./adapters.js";
import type { CompiledSchema } from "./schema-adapter.js";
// zod v3 support is opt-in: this import registers its adapter.
import { zodV3Adapter } from "./zod-v3.js";

const REVISIONS = ["2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"] as const;

function compile(input: InputSchema, io: "input" | "output" = "input"): CompiledSchema {
  return compileSchema(input, io, "test input");
}

async function issuesOf(compiled: CompiledSchema, value: unknown): Promise<ValidationIssue[]> {
  const checked = await compiled.validate(value);
  if (checked.ok) throw new Error(`expected ${JSON.stringify(value)} to be rejected`);
  return checked.issues;
}

const v4Object = z.object({
  text: z.string().describe("What to say"),
  count: z.number().int().optional(),
  loud: z.boolean().default(false),
});
const v4Shape = {
  text: z.string().describe("What to say"),
  count: z.number().int().optional(),
  loud: z.boolean().default(false),
};
const v3Object = z3.object({
  text: z3.string().describe("What to say"),
  count: z3.number().int().optional(),
  loud: z3.boolean().default(false),
});
const v3Shape = {
  text: z3.string().describe("What to say"),
  count: z3.number().int().optional(),
  loud: z3.boolean().default(false),
};

const FLAVOURS: [string, InputSchema][] = [
  ["zod v4 object", v4Object],
  ["zod v4 raw shape", v4Shape],
  ["zod v3 object", v3Object],
  ["zod v3 raw shape", v3Shape],
];

describe("compileSchema: JSON Schema", () => {
  for (const [label, input] of FLAVOURS) {
    it(`${label}: an object schema with descriptions, required, optional and defaults, no $schema`, () => {
      const { jsonSchema } = compile(input);
      expect(Object.keys(jsonSchema).length).toBeGreaterThan(0);
      expect(jsonSchema.type).toBe("object");
      expect(jsonSchema).not.toHaveProperty("$schema");
      expect(jsonSchema.properties).toMatchObject({
        text: { type: "string", description: "What to say" },
        count: { type: "integer" },
        loud: { type: "boolean", default: false },
      });
      // Defaults and optionals are not required of the caller.
      expect(jsonSchema.required).toEqual(["text"]);
    });
  }

  it("an empty raw shape is an object with no properties, never {}", () => {
    expect(compile({}).jsonSchema).toMatchObject({ type: "object", properties: {} });
    expect(compile(z.object({})).jsonSchema).toMatchObject({ type: "object", properties: {} });
    expect(compile(z3.object({})).jsonSchema).toMatchObject({ type: "object", properties: {} });
  });

  it("nested objects, arrays and enums carry their structure in both versions", () => {
    const v4 = z.object({ where: z.object({ city: z.enum(["Oslo", "Lima"]) }), tags: z.array(z.string()) });
    const v3 = z3.object({ where: z3.object({ city: z3.enum(["Oslo", "Lima"]) }), tags: z3.array(z3.string()) });
    for (const schema of [v4, v3]) {
      const { jsonSchema } = compile(schema);
      expect(jsonSchema).not.toHaveProperty("$schema");
      expect(jsonSchema.properties).toMatchObject({
        where: {
          type: "object",
          properties: { city: { type: "string", enum: ["Oslo", "Lima"] } },
          required: ["city"],
        },
        tags: { type: "array", items: { type: "string" } },
      });
    }
  });

  it("zod v3 tuples become 2020-12 prefixItems, never a draft-07 items array", () => {
    const { jsonSchema } = compile({ pair: z3.tuple([z3.string(), z3.number()]) });
    const pair = (jsonSchema.properties as Record<string, Record<string, unknown>>).pair;
    expect(pair).toMatchObject({ type: "array", prefixItems: [{ type: "string" }, { type: "number" }] });
    expect(Array.isArray(pair?.items)).toBe(false);
    expect(pair?.items).toBe(false);
    expect(pair).not.toHaveProperty("additionalItems");
  });

  it("a zod v3 tuple with a rest element puts the rest schema in items", () => {
    const { jsonSchema } = compile({ row: z3.tuple([z3.string()]).rest(z3.boolean()) });
    const row = (jsonSchema.properties as Record<string, Record<string, unknown>>).row;
    expect(row).toMatchObject({ prefixItems: [{ type: "string" }], items: { type: "boolean" } });
    expect(row).not.toHaveProperty("additionalItems");
  });

  it("zod v4 tuples are 2020-12 prefixItems too", () => {
    const { jsonSchema } = compile({ pair: z.tuple([z.string(), z.number()]) });
    expect((jsonSchema.properties as Record<string, unknown>).pair).toMatchObject({
      type: "array",
      prefixItems: [{ type: "string" }, { type: "number" }],
    });
  });

  it("zod v3 $refs point into $defs, not draft-07 definitions", () => {
    const shared = z3.object({ n: z3.number() });
    const text = JSON.stringify(compile(z3.object({ a: shared, b: shared })).jsonSchema);
    expect(text).not.toContain("#/definitions/");
    expect(text).not.toContain('"definitions"');
  });

  it("a refined or transformed object is still an object schema", () => {
    expect(compile(z.object({ a: z.string() }).refine(() => true)).jsonSchema.type).toBe("object");
    expect(compile(z.object({ a: z.string() }).transform((value) => value.a)).jsonSchema.type).toBe("object");
    expect(compile(z3.object({ a: z3.string() }).refine(() => true)).jsonSchema.type).toBe("object");
    expect(compile(z3.object({ a: z3.string() }).transform((value) => value.a)).jsonSchema.type).toBe("object");
  });
});

describe("compileSchema: definition mistakes", () => {
  it("mixing zod v3 and zod v4 in one shape throws a DefinitionError (either order)", () => {
    const first = definitionError(() => compile({ a: z.string(), b: z3.string() }));
    expect(first.message).toMatch(/mixes zod v3 and zod v4/);
    expect(first.message).toMatch(/one version per shape/);
    expect(definitionError(() => compile({ a: z3.string(), b: z.string() })).message).toBe(first.message);
  });

  it("the message names what is being compiled", () => {
    expect(() => compileSchema({ a: z.string(), b: z3.string() }, "input", 'Tool "echo" input')).toThrow(
      /Tool "echo" input/,
    );
  });

  it("something that is not a zod schema throws a DefinitionError that says what it must be", () => {
    const message =
      'test input must be a zod schema (zod v4, or zod v3 from "zod/v3"), a shape of zod fields, or a Standard Schema with a JSON Schema side (ArkType, Valibot via toStandardJsonSchema)';
    expect(definitionError(() => compile("nope" as never)).message).toBe(message);
    expect(definitionError(() => compile({ a: "string" } as never)).message).toBe(message);
  });

  for (const [label, schema] of [
    ["z.date()", { when: z.date() }],
    ["z.bigint()", { big: z.bigint() }],
    ["z.map()", z.object({ m: z.map(z.string(), z.string()) })],
    ["z.symbol()", { s: z.symbol() }],
  ] as [string, InputSchema][]) {
    it(`zod v4 ${label} throws a DefinitionError that says what to change`, () => {
      const error = definitionError(() => compile(schema));
      expect(error.message).toContain("test input");
      expect(error.message).toMatch(/cannot be expressed as JSON Schema/);
      expect(error.message).toMatch(/use JSON-representable types/);
    });
  }

  // zod-to-json-schema renders these as a string / an integer, which the v3 validator then rejects:
  // a model that follows the advertised schema could never call the tool.
  for (const [label, schema, valid] of [
    ["z3.date()", { when: z3.date() }, { when: "2026-01-01T00:00:00Z" }],
    ["z3.bigint()", { big: z3.bigint() }, { big: 1 }],
  ] as [string, InputSchema, unknown][]) {
    it(`zod v3 ${label}: the JSON Schema never promises values the validator rejects`, async () => {
      let compiled: CompiledSchema | undefined;
      try {
        compiled = compile(schema);
      } catch (error) {
        expect(String(error)).toMatch(/^DefinitionError: test input cannot be expressed as JSON Schema/);
        return;
      }
      expect(await compiled.validate(valid)).toMatchObject({ ok: true });
    });
  }
});

describe("compileSchema: validation", () => {
  it("zod v4: a missing field is 'required' and names its path", async () => {
    const compiled = compile({ a: z.string(), nested: z.object({ b: z.number() }) });
    const issues = await issuesOf(compiled, { nested: {} });
    expect(issues).toContainEqual({ path: "a", message: expect.stringMatching(/^required/) });
    expect(issues).toContainEqual({ path: "nested.b", message: expect.stringMatching(/^required/) });
  });

  it("zod v3: a missing field is 'required' and names its path", async () => {
    const compiled = compile({ a: z3.string(), nested: z3.object({ b: z3.number() }) });
    const issues = await issuesOf(compiled, { nested: {} });
    expect(issues).toContainEqual({ path: "a", message: expect.stringMatching(/required/i) });
    expect(issues).toContainEqual({ path: "nested.b", message: expect.stringMatching(/required/i) });
  });

  it("a wrong type names the path and the expected type, in both versions", async () => {
    const v4 = await issuesOf(compile({ list: z.array(z.number()) }), { list: [1, "two"] });
    expect(v4).toEqual([{ path: "list.1", message: expect.stringMatching(/number/) }]);
    const v3 = await issuesOf(compile({ list: z3.array(z3.number()) }), { list: [1, "two"] });
    expect(v3).toEqual([{ path: "list.1", message: expect.stringMatching(/number/) }]);
  });

  it("a root-level failure has the path (root)", async () => {
    expect(await issuesOf(compile(z.object({ a: z.string() })), "text")).toEqual([
      { path: "(root)", message: expect.any(String) },
    ]);
    expect(await issuesOf(compile(z3.object({ a: z3.string() })), "text")).toEqual([
      { path: "(root)", message: expect.any(String) },
    ]);
  });

  it("valid input returns the parsed value, with defaults applied and unknown keys stripped", async () => {
    for (const [, input] of FLAVOURS) {
      expect(await compile(input).validate({ text: "hi", extra: 1 })).toEqual({
        ok: true,
        value: { text: "hi", loud: false },
      });
    }
  });

  it("zod v4 async refinements are awaited", async () => {
    const compiled = compile({ code: z.string().refine(async (value) => value === "ok", "must be ok") });
    expect(await compiled.validate({ code: "ok" })).toEqual({ ok: true, value: { code: "ok" } });
    expect(await compiled.validate({ code: "no" })).toEqual({
      ok: false,
      issues: [{ path: "code", message: "must be ok" }],
    });
  });

  it("zod v3 async refinements are awaited", async () => {
    const compiled = compile({ code: z3.string().refine(async (value) => value === "ok", "must be ok") });
    expect(await compiled.validate({ code: "ok" })).toEqual({ ok: true, value: { code: "ok" } });
    expect(await compiled.validate({ code: "no" })).toEqual({
      ok: false,
      issues: [{ path: "code", message: "must be ok" }],
    });
  });

  it("synchronous schemas validate synchronously", () => {
    const result = compile({ a: z.string() }).validate({ a: "x" });
    expect(result).not.toBeInstanceOf(Promise);
    expect(result).toEqual({ ok: true, value: { a: "x" } });
  });
});

describe("telling schemas apart, and adapters", () => {
  it("isSchema and isRawShape tell schemas, shapes and other values apart", () => {
    expect(isSchema(z.string())).toBe(true);
    expect(isSchema(z3.string())).toBe(true);
    expect(isSchema({ a: z.string() })).toBe(false);
    expect(isRawShape({ a: z.string() })).toBe(true);
    expect(isRawShape({ a: z3.string() })).toBe(true);
    expect(isRawShape(z.object({ a: z.string() }))).toBe(false);
    expect(isRawShape({ a: "x" })).toBe(false);
  });

  it("each adapter accepts only its own zod version", () => {
    expect(zodV4Adapter.accepts(z.string())).toBe(true);
    expect(zodV4Adapter.accepts(z3.string())).toBe(false);
    expect(zodV3Adapter.accepts(z3.string())).toBe(true);
    expect(zodV3Adapter.accepts(z.string())).toBe(false);
  });
});

describe("tools of both zod versions, listed in every revision", () => {
  function server() {
    const built = createServer({ name: "schemas", version: "1.0.0" });
    built.tool({
      name: "v4_object",
      description: "zod v4 object",
      input: z.object({ text: z.string(), times: z.number().int().default(1) }),
      handler: ({ text, times }) => text.repeat(times),
    });
    built.tool({
      name: "v4_shape",
      description: "zod v4 raw shape",
      input: { city: z.enum(["Oslo", "Lima"]), days: z.number().optional() },
      handler: ({ city }) => city,
    });
    built.tool({
      name: "v3_object",
      description: "zod v3 object",
      input: z3.object({ query: z3.string().describe("search terms"), limit: z3.number().max(50).optional() }),
      handler: ({ query }) => query,
    });
    built.tool({
      name: "v3_shape",
      description: "zod v3 raw shape",
      input: { a: z3.number(), b: z3.number() },
      handler: ({ a, b }) => a + b,
    });
    built.tool({
      name: "v3_nested",
      description: "zod v3 nested object with a tuple",
      input: { point: z3.object({ x: z3.number(), y: z3.number() }), range: z3.tuple([z3.number(), z3.number()]) },
      handler: ({ point }) => point.x,
    });
    built.tool({
      name: "v4_refined",
      description: "zod v4 refined object",
      input: z.object({ from: z.number(), to: z.number() }).refine((value) => value.from <= value.to),
      handler: ({ from, to }) => to - from,
    });
    built.tool({
      name: "v3_refined",
      description: "zod v3 refined object",
      input: z3.object({ from: z3.number(), to: z3.number() }).refine((value) => value.from <= value.to),
      handler: ({ from, to }) => to - from,
    });
    built.tool({
      name: "no_input",
      description: "takes nothing",
      handler: () => "ok",
    });
    built.tool({
      name: "empty_shape",
      description: "an empty shape",
      input: {},
      handler: () => "ok",
    });
    return built;
  }

  const EXPECTED: Record<string, string[]> = {
    v4_object: ["text", "times"],
    v4_shape: ["city", "days"],
    v3_object: ["query", "limit"],
    v3_shape: ["a", "b"],
    v3_nested: ["point", "range"],
    v4_refined: ["from", "to"],
    v3_refined: ["from", "to"],
    no_input: [],
    empty_shape: [],
  };

  for (const protocolVersion of REVISIONS) {
    it(`${protocolVersion}: every tool has a non-empty object inputSchema with its properties`, async () => {
      const client = await createTestClient(server(), { protocolVersion });
      const tools = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(Object.keys(EXPECTED));
      for (const tool of tools) {
        const schema = tool.inputSchema;
        expect(Object.keys(schema).length, tool.name).toBeGreaterThan(0);
        expect(schema.type, tool.name).toBe("object");
        expect(schema, tool.name).not.toHaveProperty("$schema");
        expect(Object.keys((schema.properties ?? {}) as object), tool.name).toEqual(EXPECTED[tool.name]);
      }
      const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool.inputSchema]));
      expect(byName.v3_object?.properties).toMatchObject({
        query: { type: "string", description: "search terms" },
        limit: { type: "number", maximum: 50 },
      });
      expect(byName.v3_object?.required).toEqual(["query"]);
      expect(byName.v4_shape?.properties).toMatchObject({ city: { type: "string", enum: ["Oslo", "Lima"] } });
      expect(byName.v4_shape?.required).toEqual(["city"]);
      expect(byName.v3_nested?.properties).toMatchObject({
        point: { type: "object", properties: { x: { type: "number" }, y: { type: "number" } } },
        range: { type: "array", prefixItems: [{ type: "number" }, { type: "number" }] },
      });
    });

    it(`${protocolVersion}: tools of both versions validate and run`, async () => {
      const client = await createTestClient(server(), { protocolVersion });
      expect((await client.callTool("v4_object", { text: "ab", times: 2 })).content).toEqual([
        { type: "text", text: "abab" },
      ]);
      expect((await client.callTool("v3_shape", { a: 2, b: 3 })).content).toEqual([{ type: "text", text: "5" }]);
      expect((await client.callTool("v3_refined", { from: 1, to: 4 })).content).toEqual([{ type: "text", text: "3" }]);
      expect((await client.callTool("no_input")).content).toEqual([{ type: "text", text: "ok" }]);
    });
  }
});

describe("zod v3: only schema keywords are rewritten to 2020-12", () => {
  it("keeps property names and literal values that look like keywords", () => {
    const schema = z3.object({
      definitions: z3.string(),
      additionalItems: z3.number(),
      items: z3.tuple([z3.string(), z3.number()]),
      kind: z3.literal("definitions").default("definitions"),
    });
    const json = compileSchema(schema, "input", "test").jsonSchema as {
      properties: Record<string, Record<string, unknown>>;
      required: string[];
    };
    expect(Object.keys(json.properties)).toEqual(["definitions", "additionalItems", "items", "kind"]);
    expect(json.required).toEqual(["definitions", "additionalItems", "items"]);
    expect(json.properties.items).toMatchObject({
      prefixItems: [{ type: "string" }, { type: "number" }],
      items: false,
    });
    expect(json.properties.kind).toMatchObject({ const: "definitions", default: "definitions" });
  });
});

describe("compileSchema caches per schema object and per io", () => {
  it("the same schema object compiled twice is the identical CompiledSchema, compiled once", () => {
    const schema = z.object({ a: z.string() });
    const first = compileSchema(schema, "input", "first");
    const second = compileSchema(schema, "input", "second");
    expect(second).toBe(first);
    expect(second.jsonSchema).toBe(first.jsonSchema);
  });

  it("the same raw-shape object compiled twice is the identical CompiledSchema, compiled once", () => {
    const shape = { a: z.string(), b: z.number().optional() };
    const first = compileSchema(shape, "input", "first");
    expect(compileSchema(shape, "input", "second")).toBe(first);
    expect(first.jsonSchema).toMatchObject({ type: "object", required: ["a"] });
  });

  it("input and output are cached apart: each io gets its own JSON Schema", () => {
    // A default makes the field optional on input and present on output.
    const schema = z.object({ loud: z.boolean().default(false) });
    const input = compileSchema(schema, "input", "x");
    const output = compileSchema(schema, "output", "x");
    expect(output).not.toBe(input);
    expect(input.jsonSchema.required).toBeUndefined();
    expect(output.jsonSchema.required).toEqual(["loud"]);
    expect(compileSchema(schema, "input", "x")).toBe(input);
    expect(compileSchema(schema, "output", "x")).toBe(output);
  });

  it("output first, then input, still gives the input form", () => {
    const shape = { loud: z.boolean().default(false) };
    expect(compileSchema(shape, "output", "x").jsonSchema.required).toEqual(["loud"]);
    expect(compileSchema(shape, "input", "x").jsonSchema.required).toBeUndefined();
  });

  it("keyed by identity: an equal-looking but distinct object is compiled on its own", () => {
    const first = compileSchema({ a: z.string().describe("one") }, "input", "x");
    const second = compileSchema({ a: z.string().describe("two") }, "input", "x");
    expect(second).not.toBe(first);
    expect(first.jsonSchema).toMatchObject({ properties: { a: { description: "one" } } });
    expect(second.jsonSchema).toMatchObject({ properties: { a: { description: "two" } } });
  });

  it("a raw shape and the z.object of the same fields are different keys", () => {
    const shape = { a: z.string() };
    const object = z.object(shape);
    expect(compileSchema(shape, "input", "x")).not.toBe(compileSchema(object, "input", "x"));
  });

  it("a cached compile still validates each value on its own", async () => {
    const shape = { n: z.coerce.number() };
    const compiled = compileSchema(shape, "input", "x");
    expect(await compileSchema(shape, "input", "x").validate({ n: "3" })).toEqual({ ok: true, value: { n: 3 } });
    expect(await compiled.validate({ n: "7" })).toEqual({ ok: true, value: { n: 7 } });
    expect((await compiled.validate({ n: "x" })).ok).toBe(false);
  });

  it("a schema that cannot compile throws every time, naming each caller", () => {
    const schema = z.object({ when: z.date() });
    expect(() => compileSchema(schema, "input", "Tool one input")).toThrow(/^Tool one input cannot be expressed/);
    expect(() => compileSchema(schema, "input", "Tool two input")).toThrow(/^Tool two input cannot be expressed/);
  });
});
