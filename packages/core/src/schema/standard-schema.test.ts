import { toStandardJsonSchema } from "@valibot/to-json-schema";
import { type } from "arktype";
import * as v from "valibot";
import { describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import type * as z3 from "zod/v3";
import type { AnySchema, Infer, InferInput, InputSchema, StandardJsonSchema } from "../index.js";
import { createServer } from "../server/server.js";
import { createTestClient } from "../testing/client.js";
import { definitionError } from "../testing/expect-errors.test-util.js";
import { compileSchema, standardSchemaAdapter } from "./adapters.js";
import { jsonSchema } from "./json-schema.js";
import { LISTED_ISSUES } from "./validation-issues.js";

// The same tool in zod, ArkType and Valibot (through its Standard JSON Schema wrapper): listed alike, refused alike.

const ZOD = z.object({
  text: z.string().describe("What to say"),
  count: z.number().int().optional(),
  tags: z.array(z.string()),
});
const ARK = type({ text: type.string.describe("What to say"), "count?": "number.integer", tags: "string[]" });
const VALI = toStandardJsonSchema(
  v.object({
    text: v.pipe(v.string(), v.description("What to say")),
    count: v.optional(v.pipe(v.number(), v.integer())),
    tags: v.array(v.string()),
  }),
);
const LIBRARIES: [string, AnySchema][] = [
  ["zod", ZOD],
  ["ArkType", ARK],
  ["Valibot", VALI],
];

function greeter(input: AnySchema) {
  const s = createServer({ name: "std", version: "1" });
  s.tool({ name: "say", description: "Says the text", input, handler: (args) => JSON.stringify(args) });
  return s;
}

function compile(input: InputSchema) {
  return compileSchema(input, "input", "test input");
}

// A Standard JSON Schema written by hand: what any other library gives.
function handMade(validate: (value: unknown) => unknown, jsonSchema: Record<string, unknown>): StandardJsonSchema {
  return {
    "~standard": {
      version: 1,
      vendor: "hand",
      validate: validate as never,
      jsonSchema: { input: () => jsonSchema, output: () => jsonSchema },
    },
  };
}

describe.each(LIBRARIES)("a tool whose input is a %s schema", (_label, input) => {
  it("lists the same JSON Schema as zod's (zod adds its safe-integer range; key order aside)", async () => {
    const client = await createTestClient(greeter(input));
    const [tool] = await client.listTools();
    const { count, ...others } = (tool?.inputSchema.properties ?? {}) as Record<string, Record<string, unknown>>;
    expect(tool?.inputSchema).not.toHaveProperty("$schema");
    expect(tool?.inputSchema.type).toBe("object");
    expect(others).toEqual({
      text: { type: "string", description: "What to say" },
      tags: { type: "array", items: { type: "string" } },
    });
    expect(count?.type).toBe("integer");
    expect([...((tool?.inputSchema.required ?? []) as string[])].sort()).toEqual(["tags", "text"]);
  });

  it("calls the handler with the validated arguments", async () => {
    const client = await createTestClient(greeter(input));
    const result = await client.callTool("say", { text: "hi", tags: ["a"] });
    expect(result.isError).toBeFalsy();
    expect(JSON.parse((result.content[0] as { text: string }).text)).toEqual({ text: "hi", tags: ["a"] });
  });

  it("refuses a missing field and wrong types with zod's text, naming each field", async () => {
    const client = await createTestClient(greeter(input));
    const missing = await client.callTool("say", { tags: [] });
    expect(missing).toMatchObject({ isError: true });
    expect(missing.content).toEqual([
      { type: "text", text: 'Invalid arguments for tool "say":\n- text: required (expected string)' },
    ]);
    const wrong = await client.callTool("say", { text: 5, tags: "x" });
    const lines = (wrong.content[0] as { text: string }).text.split("\n").slice(1).sort();
    expect(lines).toEqual(["- tags: expected array, received string", "- text: expected string, received number"]);
    const item = await client.callTool("say", { text: "a", tags: ["b", 3] });
    expect((item.content[0] as { text: string }).text).toBe(
      'Invalid arguments for tool "say":\n- tags.1: expected string, received number',
    );
  });

  it("names the field of a library's own message (an integer check)", async () => {
    const client = await createTestClient(greeter(input));
    const result = await client.callTool("say", { text: "a", tags: [], count: 1.5 });
    expect((result.content[0] as { text: string }).text).toMatch(/^Invalid arguments for tool "say":\n- count: \S/);
  });
});

describe("Standard Schema validation", () => {
  it("reads { key } path segments (Valibot's) as zod's dotted path", async () => {
    const nested = toStandardJsonSchema(v.object({ where: v.object({ city: v.string() }) }));
    const checked = await compile(nested).validate({ where: {} });
    expect(checked).toEqual({ ok: false, issues: [{ path: "where.city", message: "required (expected string)" }] });
  });

  it("a value that is no object at all is told at (root), from ArkType's own issue list", async () => {
    for (const schema of [ARK, VALI]) {
      expect(await compile(schema).validate("text")).toEqual({
        ok: false,
        issues: [{ path: "(root)", message: "expected object, received string" }],
      });
    }
  });

  it("a missing field named like an Object.prototype member is 'required' too", async () => {
    for (const schema of [
      type({ constructor: "string" }),
      toStandardJsonSchema(v.object({ constructor: v.string() })),
    ]) {
      expect(await compile(schema).validate({})).toEqual({
        ok: false,
        issues: [{ path: "constructor", message: "required (expected string)" }],
      });
    }
  });

  it("drops a message's leading repeat of its path (ArkType's)", async () => {
    const checked = await compile(type({ name: "string >= 3" })).validate({ name: "ab" });
    expect(checked).toEqual({ ok: false, issues: [{ path: "name", message: expect.stringMatching(/^must be /) }] });
  });

  it("lists at most LISTED_ISSUES issues, then counts the rest", async () => {
    const checked = await compile(type({ list: "string[]" })).validate({ list: Array.from({ length: 30 }, () => 1) });
    expect(checked.ok).toBe(false);
    if (checked.ok) return;
    expect(checked.issues).toHaveLength(LISTED_ISSUES + 1);
    expect(checked.issues.at(-1)).toEqual({ path: "…", message: "and 10 more issues" });
  });

  it("takes an async validate (a Promise), through tools/call", async () => {
    const schema = { type: "object", properties: { n: { type: "number" } }, required: ["n"] };
    const asyncOne = handMade(
      async (value) =>
        typeof (value as { n?: unknown }).n === "number"
          ? { value }
          : { issues: [{ message: "needs n", path: [{ key: "n" }] }] },
      schema,
    );
    const s = createServer({ name: "std", version: "1" });
    s.tool({
      name: "n",
      description: "Echoes n",
      input: asyncOne,
      handler: (args) => String((args as { n: number }).n),
    });
    const client = await createTestClient(s);
    expect(await client.callTool("n", { n: 2 })).toMatchObject({ content: [{ type: "text", text: "2" }] });
    expect((await client.callTool("n", { n: "x" })).content).toEqual([
      { type: "text", text: 'Invalid arguments for tool "n":\n- n: expected number, received string' },
    ]);
    expect((await client.listTools())[0]?.inputSchema).toEqual(schema);
  });

  it("reads an output's issues against the output JSON Schema, not the input's", async () => {
    // A library whose input takes a count as text and outputs it as a number (a transform, as Valibot's).
    const counted: StandardJsonSchema = {
      "~standard": {
        version: 1,
        vendor: "hand",
        validate: (value) =>
          typeof (value as { count?: unknown }).count === "number"
            ? { value }
            : { issues: [{ message: "bad count", path: ["count"] }] },
        jsonSchema: {
          input: () => ({ type: "object", properties: { count: { type: "string" } }, required: ["count"] }),
          output: () => ({ type: "object", properties: { count: { type: "number" } }, required: ["count"] }),
        },
      },
    };
    const s = createServer({ name: "std", version: "1" });
    s.tool({
      name: "count",
      description: "Counts",
      output: counted,
      handler: (args: Record<string, unknown>) => (args.give === "text" ? { count: "3" } : ({} as never)),
      input: type({ "give?": "string" }),
    });
    const client = await createTestClient(s);
    const text = async (give?: string) =>
      ((await client.callTool("count", give ? { give } : {})).content[0] as { text: string }).text;
    expect(await text()).toMatch(/\n- count: required \(expected number\)$/);
    expect(await text("text")).toMatch(/\n- count: expected number, received string$/);
  });

  it("is checked after zod v4's own adapter: zod keeps its path", () => {
    expect(standardSchemaAdapter.accepts(ZOD)).toBe(true);
    expect(compile(ZOD).jsonSchema.properties).toHaveProperty("count.maximum", Number.MAX_SAFE_INTEGER);
  });
});

describe("Standard Schema definition mistakes", () => {
  it("a Standard Schema without a JSON Schema side says what to do", () => {
    const error = definitionError(() => compile(v.object({ a: v.string() }) as never));
    expect(error.message).toBe(
      'test input is a Standard Schema (vendor "valibot") without a JSON Schema side (~standard.jsonSchema), which MCP lists; wrap it in its library\'s Standard JSON Schema converter (Valibot: toStandardJsonSchema(schema) from "@valibot/to-json-schema") or use a library that has one (zod v4, ArkType)',
    );
    expect(definitionError(() => compile({ a: v.string() } as never)).message).toMatch(/without a JSON Schema side/);
  });

  it("a raw shape of ArkType or Valibot fields says to wrap them in the library's object", () => {
    for (const [field, vendor] of [
      [type("string"), "arktype"],
      [toStandardJsonSchema(v.string()), "valibot"],
    ] as const) {
      const error = definitionError(() => compile({ a: z.string(), b: field } as never));
      expect(error.message).toBe(
        `test input is a raw shape with a field from ${vendor}; a raw shape takes zod fields only: wrap the fields in ${vendor}'s object (ArkType: type({ … }), Valibot: toStandardJsonSchema(v.object({ … })))`,
      );
    }
  });

  it("an ArkType schema that is no object is refused as a tool's input", () => {
    const s = createServer({ name: "std", version: "1" });
    const error = definitionError(() =>
      s.tool({ name: "x", description: "x", input: type("string"), handler: () => "" }),
    );
    expect(error.message).toMatch(/must be an object schema/);
  });

  it("what JSON Schema cannot hold (an ArkType Date) is a DefinitionError at registration, never a listed {}", () => {
    const s = createServer({ name: "std", version: "1" });
    const error = definitionError(() =>
      s.tool({ name: "x", description: "x", input: type({ when: "Date" }), handler: () => "" }),
    );
    expect(error.message).toMatch(/^Tool "x" input cannot be expressed as JSON Schema \(ArkType's date cannot/);
  });
});

describe("Standard Schema types", () => {
  it("Infer and InferInput give the library's output type", () => {
    expectTypeOf<Infer<typeof ARK>>().toEqualTypeOf<{ text: string; count?: number; tags: string[] }>();
    expectTypeOf<InferInput<typeof ARK>>().toEqualTypeOf<{ text: string; count?: number; tags: string[] }>();
    expectTypeOf<Infer<typeof VALI>>().toEqualTypeOf<{ text: string; count?: number | undefined; tags: string[] }>();
    expectTypeOf<InferInput<typeof VALI>>().toEqualTypeOf<{
      text: string;
      count?: number | undefined;
      tags: string[];
    }>();
    // zod keeps its own inference, v3 too.
    expectTypeOf<Infer<typeof ZOD>>().toEqualTypeOf<{ text: string; count?: number | undefined; tags: string[] }>();
    expectTypeOf<Infer<z3.ZodString>>().toEqualTypeOf<string>();
  });

  it("a handler's arguments are typed from an ArkType or Valibot input", () => {
    const s = createServer({ name: "std", version: "1" });
    s.tool({
      name: "ark",
      description: "d",
      input: ARK,
      handler: (args) => {
        expectTypeOf(args).toEqualTypeOf<{ text: string; count?: number; tags: string[] }>();
        return args.text;
      },
    });
    s.tool({
      name: "vali",
      description: "d",
      input: VALI,
      handler: (args) => {
        expectTypeOf(args.count).toEqualTypeOf<number | undefined>();
        return args.text;
      },
    });
  });
});

describe("a hostile or buggy Standard Schema library", () => {
  function server(input: StandardJsonSchema) {
    const s = createServer({ name: "std", version: "1" });
    const calls: unknown[] = [];
    s.tool({
      name: "t",
      description: "d",
      input,
      handler: (args) => {
        calls.push(args);
        return "called";
      },
    });
    return { s, calls };
  }

  it.each([
    ["a number", 42],
    ["null", null],
    ["issues that are no list", { issues: "wrong" }],
  ])("a validate answering %s fails closed: an internal error, the handler never called", async (_label, answer) => {
    const { s, calls } = server(handMade(() => answer, { type: "object" }));
    for (const protocolVersion of ["2026-07-28", "2025-11-25"] as const) {
      const client = await createTestClient(s, { protocolVersion });
      await expect(client.callTool("t", {})).rejects.toThrow(/Internal error/);
    }
    expect(calls).toEqual([]);
  });

  it("a path's huge key is cut, not echoed; other segments are told as text", async () => {
    const key = "k".repeat(100_000);
    const { s } = server(
      handMade(() => ({ issues: [{ message: "bad", path: [key, { key: 2 }] }] }), { type: "object" }),
    );
    const client = await createTestClient(s);
    const text = ((await client.callTool("t", {})).content[0] as { text: string }).text;
    expect(text).toBe(`Invalid arguments for tool "t":\n- ${"k".repeat(64)}….2: bad`);
  });

  it.each([
    ["ArkType", type({ a: "string" })],
    ["a raw JSON Schema", jsonSchema({ type: "object", properties: { a: { type: "string" } } })],
  ] as const)(
    "%s hands unlisted keys on: a value nested past the bound is refused, not handed on",
    async (_l, input) => {
      const s = createServer({ name: "std", version: "1" });
      s.tool({ name: "t", description: "d", input: input as never, handler: (args) => Object.keys(args).join() });
      let deep: unknown = 1;
      for (let level = 0; level < 100; level++) deep = [deep];
      for (const protocolVersion of ["2026-07-28", "2025-11-25"] as const) {
        const client = await createTestClient(s, { protocolVersion });
        expect((await client.callTool("t", { a: "x", extra: deep })).content).toEqual([
          {
            type: "text",
            text: 'Invalid arguments for tool "t":\n- extra: nests deeper than 64 levels of arrays and objects',
          },
        ]);
        expect((await client.callTool("t", { a: "x", extra: [[1]] })).content).toEqual([
          { type: "text", text: "a,extra" },
        ]);
      }
    },
  );

  it("a JSON Schema that contains itself is a DefinitionError naming the tool", () => {
    const cyclic: Record<string, unknown> = { type: "object" };
    cyclic.properties = { a: cyclic };
    expect(definitionError(() => server(handMade((value) => ({ value }), cyclic))).message).toBe(
      'Tool "t" input\'s JSON Schema contains itself or nests too deep to list',
    );
  });
});
