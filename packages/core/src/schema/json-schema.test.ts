import { describe, expect, expectTypeOf, it } from "vitest";
import { DefinitionError } from "../wire/errors.js";
import { type JsonSchema, type JsonSchemaResult, jsonSchema } from "./json-schema.js";

const CITY = { type: "object", properties: { city: { type: "string" } }, required: ["city"] } as const;

function run<I, O>(schema: JsonSchema<I, O>, value: unknown): JsonSchemaResult<O> {
  return schema["~standard"].validate(value);
}

function lines(result: JsonSchemaResult<unknown>): string[] {
  return (result.issues ?? []).map((issue) => `${issue.path.map(String).join(".") || "(root)"}: ${issue.message}`);
}

describe("jsonSchema: Standard Schema and Standard JSON Schema", () => {
  it("validates, and lists the user's schema as written (its $schema too) for the 2020-12 target", () => {
    const schema = jsonSchema({ $schema: "https://json-schema.org/draft/2020-12/schema", ...CITY });
    expect(schema["~standard"].version).toBe(1);
    expect(run(schema, { city: "Oslo" })).toEqual({ value: { city: "Oslo" } });
    const listed = schema["~standard"].jsonSchema.input({ target: "draft-2020-12" });
    expect(listed).toEqual({ $schema: "https://json-schema.org/draft/2020-12/schema", ...CITY });
    expect(schema["~standard"].jsonSchema.output({ target: "draft-2020-12" })).toEqual(listed);
    expect(() => schema["~standard"].jsonSchema.input({ target: "draft-07" })).toThrow(/draft-07/);
  });

  it("tells each failure as a path and a message: required names the property, arrays count from 0", () => {
    const schema = jsonSchema({
      type: "object",
      properties: {
        items: {
          type: "array",
          items: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
        },
        city: { type: "string" },
      },
      required: ["city"],
    });
    expect(lines(run(schema, {}))).toEqual(["city: required (expected string)"]);
    const deep = run(schema, { city: "x", items: [{ name: "a" }, { name: "b" }, {}] });
    expect(deep.issues?.[0]?.path).toEqual(["items", 2, "name"]);
    expect(lines(deep)).toEqual(["items.2.name: required (expected string)"]);
    expect(lines(run(schema, { city: 5 }))).toEqual(["city: must be string"]);
    expect(lines(run(schema, "x"))).toEqual(["(root): must be object"]);
  });

  it("tells a failed union once, enums with their choices, and unknown keys by name", () => {
    const schema = jsonSchema({
      type: "object",
      properties: { id: { anyOf: [{ type: "string" }, { type: "integer" }] }, mode: { enum: ["a", "b"] } },
      additionalProperties: false,
    });
    expect(lines(run(schema, { id: true }))).toEqual(["id: must match a schema in anyOf"]);
    expect(lines(run(schema, { mode: "c" }))).toEqual(['mode: must be one of "a", "b"']);
    expect(lines(run(schema, { extra: 1 }))).toEqual(['(root): unrecognized key "extra"']);
    expect(lines(run(schema, { ["k".repeat(100_000)]: 1 }))[0]).toHaveLength('(root): unrecognized key "'.length + 66);
  });

  it("fills in defaults on a copy, as zod does, and coerces nothing", () => {
    const schema = jsonSchema({
      type: "object",
      properties: {
        units: { type: "string", default: "metric" },
        days: { type: "integer" },
        nested: { type: "object", properties: { on: { type: "boolean", default: true } } },
      },
    });
    const sent = { days: 3, nested: {} };
    expect(run(schema, sent)).toEqual({ value: { days: 3, units: "metric", nested: { on: true } } });
    expect(sent).toEqual({ days: 3, nested: {} });
    expect(lines(run(schema, { days: "3" }))).toEqual(["days: must be integer"]);
  });

  it("reads own properties only: a missing constructor is missing, a client's __proto__ is a key like any other", () => {
    const schema = jsonSchema(
      JSON.parse(
        '{"type":"object","properties":{"constructor":{"type":"string"},"toString":{"type":"string","default":"d"}},"required":["constructor"]}',
      ),
    );
    expect(lines(run(schema, {}))).toEqual(["constructor: required (expected string)"]);
    const result = run(schema, JSON.parse('{"constructor":"c","__proto__":{"polluted":true}}'));
    expect(result.issues).toBeUndefined();
    const value = (result as { value: Record<string, unknown> }).value;
    expect(Object.hasOwn(value, "__proto__")).toBe(true);
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(value.toString).toBe("d");
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("checks formats (ajv-formats) and unevaluatedProperties", () => {
    const schema = jsonSchema({
      type: "object",
      properties: { email: { type: "string", format: "email" } },
      allOf: [{ properties: { note: { type: "string" } } }],
      unevaluatedProperties: false,
    });
    expect(lines(run(schema, { email: "nope" }))).toEqual(['email: must match format "email"']);
    expect(lines(run(schema, { email: "a@b.co", note: "n", other: 1 }))).toEqual(['(root): unrecognized key "other"']);
    const iri = jsonSchema({ type: "string", format: "iri" });
    expect(run(iri, "not an iri at all").issues).toBeUndefined();
  });

  it("validates a recursive schema through its own $defs", () => {
    const schema = jsonSchema({
      type: "object",
      properties: { tree: { $ref: "#/$defs/node" } },
      $defs: { node: { type: "object", properties: { children: { type: "array", items: { $ref: "#/$defs/node" } } } } },
    });
    expect(run(schema, { tree: { children: [{ children: [] }] } }).issues).toBeUndefined();
    expect(lines(run(schema, { tree: { children: [{ children: [5] }] } }))).toEqual([
      "tree.children.0.children.0: must be object",
    ]);
  });

  it("takes x- annotations and the same $id in two schemas", () => {
    const one = jsonSchema({ $id: "https://example.com/a", type: "object", "x-ui": { widget: "map" } });
    const two = jsonSchema({ $id: "https://example.com/a", type: "string" });
    expect(run(one, {}).issues).toBeUndefined();
    expect(run(two, "s").issues).toBeUndefined();
  });
});

describe("jsonSchema: a bad schema is a DefinitionError when used, never fetched", () => {
  const cases: [string, unknown, RegExp][] = [
    ["not an object", 42, /is not a JSON Schema object \(got number\)/],
    ["not valid", { type: "objec" }, /is not valid JSON Schema 2020-12: schema\/type must be equal/],
    ["another dialect", { $schema: "http://json-schema.org/draft-07/schema#" }, /only JSON Schema 2020-12 is taken/],
    ["a remote $ref", { properties: { a: { $ref: "https://example.com/a.json" } } }, /never fetched/],
    [
      "the meta-schema by $ref",
      { properties: { a: { $ref: "https://json-schema.org/draft/2020-12/schema" } } },
      /never fetched/,
    ],
    ["an unknown keyword", { type: "object", requird: ["a"] }, /unknown keyword: "requird" \(a typo\?/],
    ["an unknown format", { type: "string", format: "postcode" }, /unknown format "postcode"/],
    ["a property named __proto__", JSON.parse('{"properties":{"__proto__":{}}}'), /"__proto__" in properties/],
  ];
  it.each(cases)("%s", (_name, schema, message) => {
    const wrapped = jsonSchema(schema as never);
    expect(() => wrapped["~standard"].jsonSchema.input({ target: "draft-2020-12" })).toThrow(DefinitionError);
    expect(() => wrapped["~standard"].jsonSchema.input({ target: "draft-2020-12" })).toThrow(message);
    expect(() => wrapped["~standard"].validate({})).toThrow(message);
  });
});

describe("jsonSchema: types from the schema", () => {
  type In<S> = S extends JsonSchema<infer I, unknown> ? I : never;
  type Out<S> = S extends JsonSchema<unknown, infer O> ? O : never;

  it("infers properties, required, nullable, enums, const, arrays, tuples and unions", () => {
    const city = jsonSchema({ type: "object", properties: { city: { type: "string" } }, required: ["city"] });
    expectTypeOf<Out<typeof city>>().toEqualTypeOf<{ city: string }>();
    const many = jsonSchema({
      type: "object",
      properties: {
        name: { type: ["string", "null"] },
        mode: { enum: ["a", "b"] },
        kind: { const: "k" },
        tags: { type: "array", items: { type: "string" } },
        pair: { type: "array", prefixItems: [{ type: "number" }, { type: "boolean" }], items: false },
        id: { anyOf: [{ type: "string" }, { type: "integer" }] },
        units: { type: "string", default: "metric" },
        any: {},
      },
      required: ["name", "mode"],
    });
    expectTypeOf<In<typeof many>>().toEqualTypeOf<{
      name: string | null;
      mode: "a" | "b";
      kind?: "k";
      tags?: string[];
      pair?: [number, boolean];
      id?: string | number;
      units?: string;
      any?: unknown;
    }>();
    expectTypeOf<Out<typeof many>["units"]>().toEqualTypeOf<string>();
  });

  it("reads the keywords beside anyOf, oneOf and allOf too (an object that needs one of two fields)", () => {
    const either = jsonSchema({
      type: "object",
      properties: { a: { type: "string" }, b: { type: "number" } },
      anyOf: [{ required: ["a"] }, { required: ["b"] }],
    });
    expectTypeOf<Out<typeof either>>().toEqualTypeOf<{ a?: string; b?: number }>();
    const both = jsonSchema({
      type: "object",
      properties: { a: { type: "string" } },
      required: ["a"],
      allOf: [{ type: "object", properties: { b: { type: "number" } }, required: ["b"] }],
    });
    expectTypeOf<Out<typeof both>>().toEqualTypeOf<{ a: string } & { b: number }>();
    const kind = jsonSchema({ type: "string", oneOf: [{ const: "x" }, { const: "y" }] });
    expectTypeOf<Out<typeof kind>>().toEqualTypeOf<"x" | "y">();
  });

  it("lets jsonSchema<T>(schema) state the type, and admits extra keys only when the schema does", () => {
    const stated = jsonSchema<{ when: Date }>({ type: "object" });
    expectTypeOf<Out<typeof stated>>().toEqualTypeOf<{ when: Date }>();
    // A schema typed by an interface (no index signature) is taken too; its type says nothing literal: unknown.
    interface Typed {
      type?: string;
      required?: string[];
    }
    const typed: Typed = { type: "object" };
    expectTypeOf<Out<ReturnType<typeof jsonSchema<never, typeof typed>>>>().toEqualTypeOf<unknown>();
    const open = jsonSchema({ type: "object", properties: { a: { type: "number" } }, additionalProperties: true });
    expectTypeOf<Out<typeof open>>().toEqualTypeOf<{ [key: string]: unknown; a?: number }>();
  });
});
