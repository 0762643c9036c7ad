import { z } from "zod";
import * as z3 from "zod/v3";
import type { InputSchema } from "./schema-adapter.js";

// Schemas of every kind zod offers, each a tool's input (and output): what registration must treat the same whether
// it converts them to JSON Schema at once or on first use. Built fresh per call (compiled schemas are cached by object).

/** One schema of the corpus; `lazy`: the walk should know it converts, so registration does not convert it. */
export interface Sample {
  label: string;
  schema: InputSchema;
  lazy: boolean;
}

enum Colour {
  Red = 0,
  Green = 1,
}
enum Size {
  S = "s",
  L = "l",
}

// Field schemas (zod v4), each tried as a raw shape's field and inside a z.object.
function v4Fields(): [string, z.core.$ZodType, boolean][] {
  const shared = z.string().describe("used twice");
  const Tree: z.ZodType = z.lazy(() => z.object({ name: z.string(), children: z.array(Tree) }));
  const Category = z.object({
    name: z.string(),
    get subcategories() {
      return z.array(Category);
    },
  });
  return [
    ["string", z.string(), true],
    // An author's pattern is checked at registration (RE2 must be able to run it): converted at once.
    ["string checks", z.string().min(1).max(5).regex(/^a+/).trim(), false],
    ["string formats", z.email().describe("mail"), true],
    ["url, uuid, datetime", z.object({ u: z.url(), i: z.uuid(), d: z.iso.datetime(), t: z.iso.time() }), true],
    ["number", z.number(), true],
    ["number checks", z.number().int().gt(0).lte(100).multipleOf(5), true],
    ["z.int32 and z.float32", z.tuple([z.int32(), z.float32()]), true],
    ["multipleOf(0)", z.number().multipleOf(0), false],
    ["multipleOf(Infinity)", z.number().multipleOf(Number.POSITIVE_INFINITY), false],
    ["boolean", z.boolean(), true],
    ["null", z.null(), true],
    ["any and unknown", z.object({ a: z.any(), u: z.unknown() }), true],
    ["enum", z.enum(["a", "b"]), true],
    ["native enums", z.object({ c: z.enum(Colour), s: z.nativeEnum(Size) }), true],
    ["enum with a BigInt value", z.enum({ A: 1n } as never), false],
    ["literals", z.union([z.literal("x"), z.literal(1), z.literal(true), z.literal(null)]), true],
    ["literal of many", z.literal(["a", "b", 3]), true],
    ["literal undefined", z.literal(undefined), false],
    ["literal bigint", z.literal(1n), false],
    [
      "optional, nullable, nullish",
      z.object({ o: z.string().optional(), n: z.number().nullable(), x: z.nullish(z.boolean()) }),
      true,
    ],
    ["default", z.number().default(3), true],
    ["default from a function", z.string().default(() => "now"), true],
    ["default object", z.object({ a: z.number() }).default({ a: 1 }), false],
    [
      "default that throws",
      z.string().default(() => {
        throw new Error("no default today");
      }),
      false,
    ],
    ["bigint default", z.bigint().default(1n), false],
    ["prefault", z.number().prefault(2), true],
    ["readonly", z.array(z.string()).readonly(), true],
    ["nonoptional", z.string().optional().nonoptional(), true],
    ["array", z.array(z.number()).min(1).max(3), true],
    ["nested arrays", z.array(z.array(z.enum(["x"]))), true],
    ["tuple with rest", z.tuple([z.string(), z.number().optional()], z.boolean()), true],
    ["union", z.union([z.string(), z.number()]), true],
    [
      "discriminated union",
      z.discriminatedUnion("kind", [
        z.object({ kind: z.literal("a"), a: z.string() }),
        z.object({ kind: z.literal("b") }),
      ]),
      true,
    ],
    ["xor", z.xor([z.string(), z.number()]), true],
    ["intersection", z.intersection(z.object({ a: z.string() }), z.object({ b: z.number() })), false],
    ["record", z.record(z.string(), z.number()), true],
    ["record by enum", z.record(z.enum(["a", "b"]), z.string()), true],
    ["record by number", z.record(z.number(), z.string()), true],
    ["partial record", z.partialRecord(z.enum(["a", "b"]), z.string()), true],
    ["nested object", z.object({ where: z.object({ city: z.string(), zip: z.string().optional() }) }), true],
    ["strict object", z.strictObject({ a: z.string() }), true],
    ["loose object", z.looseObject({ a: z.string() }), true],
    ["catchall", z.object({ a: z.string() }).catchall(z.number()), true],
    ["catchall date", z.object({ a: z.string() }).catchall(z.date()), false],
    [
      "extend, pick, omit, partial, required",
      z
        .object({ a: z.string(), b: z.number() })
        .extend({ c: z.boolean() })
        .pick({ a: true, c: true })
        .partial()
        .required({ a: true }),
      true,
    ],
    ["refined", z.string().refine((value) => value.length > 1), true],
    ["superRefined object", z.object({ a: z.number() }).superRefine(() => {}), true],
    ["transformed", z.string().transform((value) => value.length), false],
    ["piped", z.string().pipe(z.string().min(1)), false],
    ["preprocessed", z.preprocess((value) => value, z.number()), false],
    ["coerced", z.coerce.number(), true],
    ["catch", z.string().catch("fallback"), false],
    ["date", z.date(), false],
    ["bigint", z.bigint(), false],
    ["symbol", z.symbol(), false],
    ["undefined", z.undefined(), false],
    ["void", z.void(), false],
    ["nan", z.nan(), false],
    ["never", z.never(), false],
    ["map", z.map(z.string(), z.number()), false],
    ["set", z.set(z.string()), false],
    ["custom", z.custom<string>((value) => typeof value === "string"), false],
    ["template literal", z.templateLiteral(["id-", z.number()]), false],
    ["recursive lazy", Tree, false],
    ["recursive getter", Category, true],
    ["shared field", z.object({ a: shared, b: shared }), true],
    ["described", z.string().describe("a description"), true],
    ["titled", z.number().meta({ title: "Count", description: "how many", deprecated: true }), true],
    ["meta id", z.string().meta({ id: "Name" }), false],
    ["meta id under a description", z.string().meta({ id: "Inner" }).describe("outer"), false],
    ["meta examples", z.string().meta({ examples: ["a"] }), false],
    ["meta bigint example", z.string().meta({ examples: [1n] }), false],
    ["branded", z.string().brand<"Id">(), true],
  ];
}

function v3Fields(): [string, z3.ZodTypeAny, boolean][] {
  const Tree: z3.ZodType<unknown> = z3.lazy(() => z3.object({ children: z3.array(Tree) }));
  return [
    ["v3 string", z3.string().min(1).email().describe("mail"), true],
    ["v3 number", z3.number().int().min(0).multipleOf(2), true],
    [
      "v3 boolean, null, any, unknown",
      z3.object({ b: z3.boolean(), n: z3.null(), a: z3.any(), u: z3.unknown() }),
      true,
    ],
    ["v3 enums", z3.object({ e: z3.enum(["a", "b"]), n: z3.nativeEnum(Colour) }), true],
    ["v3 literals", z3.union([z3.literal("x"), z3.literal(2), z3.literal(false)]), true],
    [
      "v3 optional, nullable, default",
      z3.object({ o: z3.string().optional(), n: z3.number().nullable(), d: z3.boolean().default(true) }),
      true,
    ],
    [
      "v3 default that throws",
      z3.string().default(() => {
        throw new Error("no default today");
      }),
      false,
    ],
    ["v3 BigInt literal", z3.literal(1n), false],
    ["v3 BigInt default", z3.number().default(1n as never), false],
    ["v3 readonly", z3.array(z3.string()).readonly(), true],
    ["v3 tuple with rest", z3.tuple([z3.string()]).rest(z3.number()), true],
    [
      "v3 discriminated union",
      z3.discriminatedUnion("k", [z3.object({ k: z3.literal("a") }), z3.object({ k: z3.literal("b") })]),
      true,
    ],
    ["v3 record", z3.record(z3.string(), z3.number()), true],
    [
      "v3 strict, passthrough, catchall",
      z3.object({ s: z3.object({}).strict(), p: z3.object({}).passthrough(), c: z3.object({}).catchall(z3.string()) }),
      true,
    ],
    ["v3 catchall date", z3.object({}).catchall(z3.date()), false],
    ["v3 refined", z3.string().refine((value) => value !== ""), false],
    ["v3 transformed", z3.string().transform((value) => value.length), false],
    ["v3 date", z3.date(), false],
    ["v3 coerced date", z3.coerce.date(), false],
    ["v3 bigint", z3.bigint(), false],
    ["v3 map", z3.map(z3.string(), z3.string()), false],
    ["v3 recursive lazy", Tree, false],
    ["v3 intersection", z3.intersection(z3.object({ a: z3.string() }), z3.object({ b: z3.string() })), false],
  ];
}

/** The corpus, fresh: each field as a raw shape and as an object, then whole-schema cases of both versions. */
export function corpus(): Sample[] {
  const samples: Sample[] = [];
  for (const [label, field, lazy] of v4Fields()) {
    samples.push({ label: `{ f: ${label} }`, schema: { f: field, g: z.string().optional() }, lazy });
  }
  for (const [label, field, lazy] of v4Fields()) {
    samples.push({ label: `z.object({ f: ${label} })`, schema: z.object({ f: field }), lazy });
  }
  for (const [label, field, lazy] of v3Fields()) {
    samples.push({ label: `{ f: ${label} }`, schema: { f: field }, lazy });
  }
  for (const [label, field, lazy] of v3Fields()) {
    samples.push({ label: `z3.object({ f: ${label} })`, schema: z3.object({ f: field }), lazy });
  }
  const symbolKeyed: Record<PropertyKey, unknown> = { a: z.string() };
  symbolKeyed[Symbol("hidden")] = z.string();
  // An own field named __proto__ (as JSON.parse makes one), not the prototype.
  const protoKeyed: Record<string, unknown> = {};
  Object.defineProperty(protoKeyed, "__proto__", {
    value: z.string(),
    enumerable: true,
    writable: true,
    configurable: true,
  });
  const objectRoot = z.object({ a: z.string() });
  samples.push(
    { label: "an empty shape", schema: {}, lazy: true },
    { label: "an empty object", schema: z.object({}), lazy: true },
    {
      label: "fields named like Object.prototype members",
      schema: { constructor: z.string().optional(), toString: z.number(), valueOf: z.boolean().optional() },
      lazy: true,
    },
    { label: "a field named __proto__", schema: protoKeyed as InputSchema, lazy: true },
    { label: "a symbol key", schema: symbolKeyed as InputSchema, lazy: false },
    { label: "a described object", schema: objectRoot.describe("the whole input"), lazy: true },
    { label: "a refined object", schema: objectRoot.refine(() => true), lazy: true },
    { label: "an object with meta type string", schema: objectRoot.meta({ type: "string" } as never), lazy: false },
    { label: "an object with meta id", schema: z.object({ b: z.string() }).meta({ id: "Root" }), lazy: false },
    { label: "a transformed object", schema: objectRoot.transform((value) => value.a), lazy: false },
    { label: "an optional object", schema: objectRoot.optional(), lazy: false },
    { label: "a record", schema: z.record(z.string(), z.string()), lazy: false },
    { label: "a union of objects", schema: z.union([objectRoot, z.object({ b: z.number() })]), lazy: false },
    {
      label: "an intersection of objects",
      schema: z.intersection(objectRoot, z.object({ b: z.number() })),
      lazy: false,
    },
    {
      label: "a recursive object",
      schema: z.object({
        name: z.string(),
        get next() {
          return z.array(z.object({ n: z.number() })).optional();
        },
      }),
      lazy: true,
    },
    { label: "a string", schema: z.string(), lazy: false },
    { label: "an array", schema: z.array(z.string()), lazy: false },
    { label: "zod v3: a refined object", schema: z3.object({ a: z3.string() }).refine(() => true), lazy: false },
    { label: "zod v3: a string", schema: z3.string(), lazy: false },
    { label: "zod v3 and v4 fields", schema: { a: z.string(), b: z3.string() } as InputSchema, lazy: false },
    { label: "zod v4 and v3 fields", schema: { a: z3.string(), b: z.string() } as InputSchema, lazy: false },
    { label: "a field that is no schema", schema: { a: z.string(), b: "string" } as never, lazy: false },
    { label: "not a schema", schema: "nope" as never, lazy: false },
  );
  return samples;
}

/** Arguments to call a corpus tool with: nothing, values of a few common forms, one nested too deep. */
export const CALLS: Record<string, unknown>[] = [
  {},
  { f: "aa", g: "x" },
  { f: 5, a: "x", toString: 1 },
  { f: true, constructor: "c" },
  { f: null },
  { f: ["a", 1] },
  { f: { a: "x", c: true, kind: "b", name: "n", subcategories: [] } },
  { f: { a: [[1]] } },
  { f: JSON.parse(`${"[".repeat(80)}${"]".repeat(80)}`) },
];
