import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import * as z3 from "zod/v3";
import { createServer, type Server } from "../index.js";
import { createTestClient } from "../testing/client.js";
import { DefinitionError } from "../wire/errors.js";
import { compileSchema, registerSchemaAdapter } from "./adapters.js";
import { DEFERRED_NODES } from "./compiled-schema.js";
import { inlineRefs } from "./inline-refs.js";
import type { SchemaAdapter } from "./schema-adapter.js";
import "./zod-v3.js";

// Listed schemas are JSON Schema 2020-12 that strict clients accept: a reused sub-schema is inlined wherever it is
// used, only a recursive one stays a reference (into `$defs`, or `#`), and inlining is bounded in size.

const REVISIONS = ["2025-11-25", "2026-07-28"] as const;

function refsIn(value: unknown, into: string[] = []): string[] {
  if (Array.isArray(value)) for (const one of value) refsIn(one, into);
  else if (typeof value === "object" && value !== null) {
    for (const [key, one] of Object.entries(value)) {
      if (key === "$ref" && typeof one === "string") into.push(one);
      else refsIn(one, into);
    }
  }
  return into;
}

// Each listed schema is valid 2020-12 (against the meta-schema) and compiles, which resolves every `$ref`.
function expectValid2020(schema: unknown): Ajv2020 {
  const ajv = new Ajv2020({ strict: false });
  expect(ajv.validateSchema(schema as object), JSON.stringify(ajv.errors)).toBe(true);
  ajv.compile(schema as object);
  return ajv;
}

async function listed(server: Server): Promise<Record<string, { inputSchema: unknown; outputSchema?: unknown }>[]> {
  const lists = [];
  for (const protocolVersion of REVISIONS) {
    const client = await createTestClient(server, { protocolVersion });
    const tools = await client.listTools();
    lists.push(Object.fromEntries(tools.map((tool) => [tool.name, tool])));
  }
  return lists;
}

// A schema whose every level uses the one below twice: 2^depth leaves once inlined.
function doublingV4(depth: number): z.ZodType {
  let level: z.ZodType = z.string();
  for (let i = 0; i < depth; i++) level = z.object({ a: level, b: level });
  return level;
}

function doublingV3(depth: number): z3.ZodTypeAny {
  let level: z3.ZodTypeAny = z3.string();
  for (let i = 0; i < depth; i++) level = z3.object({ a: level, b: level });
  return level;
}

describe("reused sub-schemas are inlined", () => {
  it("a zod v3 object used twice (and in a tuple) lists with no $ref, in both eras, and validates as before", async () => {
    const home = z3.object({ street: z3.string() });
    const server = createServer({ name: "refs", version: "1.0.0" });
    server.tool({
      name: "move",
      description: "d",
      input: { home, work: home, pair: z3.tuple([home, home]) },
      output: z3.object({ from: home, to: home }),
      handler: () => ({ from: { street: "a" }, to: { street: "b" } }),
    });
    for (const list of await listed(server)) {
      const tool = list.move;
      expect(refsIn(tool)).toEqual([]);
      expect(JSON.stringify(tool)).not.toMatch(/\$defs|definitions/);
      const street = { type: "object", properties: { street: { type: "string" } } };
      expect(tool?.inputSchema).toMatchObject({
        properties: { home: street, work: street, pair: { prefixItems: [street, street] } },
      });
      expect(tool?.outputSchema).toMatchObject({ properties: { from: street, to: street } });
      const ajv = expectValid2020(tool?.inputSchema);
      expect(ajv.validate(tool?.inputSchema as object, { home: {}, work: { street: "x" }, pair: [] })).toBe(false);
      expectValid2020(tool?.outputSchema);
    }
    const client = await createTestClient(server, { protocolVersion: "2026-07-28" });
    const bad = await client.callTool("move", { home: { street: "a" }, work: {}, pair: [{ street: "a" }, {}] });
    expect(bad.isError).toBe(true);
  });

  it("zod v4 parts used twice, or with a registry id, inline too", async () => {
    const point = z.object({ x: z.number() }).meta({ id: "Point" });
    const server = createServer({ name: "refs", version: "1.0.0" });
    server.tool({ name: "line", description: "d", input: { from: point, to: point }, handler: () => "" });
    const [list] = await listed(server);
    expect(refsIn(list?.line)).toEqual([]);
    expect(list?.line?.inputSchema).toMatchObject({ properties: { from: { properties: { x: {} } } } });
    expect(list?.line?.inputSchema).not.toHaveProperty("$defs");
  });

  it("a JSON Schema adapter's refs into `definitions` are inlined; one that is not a local pointer is refused", () => {
    class Raw {
      constructor(readonly schema: Record<string, unknown>) {}
    }
    const raw: SchemaAdapter = {
      accepts: (schema) => schema instanceof Raw,
      object: () => {
        throw new Error("no shapes");
      },
      toJsonSchema: (schema) => (schema as unknown as Raw).schema,
      validate: (_schema, value) => ({ ok: true, value }),
    };
    registerSchemaAdapter(raw);
    const name = { type: "string", minLength: 1 };
    const given = new Raw({
      type: "object",
      properties: { first: { $ref: "#/definitions/name", description: "First" }, last: { $ref: "#/definitions/name" } },
      definitions: { name },
    });
    expect(compileSchema(given as never, "input", "x").jsonSchema).toEqual({
      type: "object",
      properties: { first: { ...name, description: "First" }, last: name },
    });
    const external = new Raw({ type: "object", properties: { a: { $ref: "https://example.com/a.json" } } });
    expect(() => compileSchema(external as never, "input", 'Tool "ext" input').jsonSchema).toThrow(
      /Tool "ext" input's JSON Schema has a \$ref "https:\/\/example.com\/a.json" that is not a local JSON Pointer/,
    );
  });
});

describe("a hand-written JSON Schema (a verbatim adapter)", () => {
  it("is listed as written, its $defs and $ref kept, and still counted against the bound", () => {
    class Written {
      constructor(readonly schema: Record<string, unknown>) {}
    }
    registerSchemaAdapter({
      accepts: (schema) => schema instanceof Written,
      object: () => {
        throw new Error("no shapes");
      },
      toJsonSchema: (schema) => (schema as unknown as Written).schema,
      validate: (_schema, value) => ({ ok: true, value }),
      verbatim: true,
    });
    const given = {
      type: "object",
      properties: { address: { $ref: "#/$defs/address" } },
      $defs: { address: { $anchor: "addressDef", type: "object" } },
    };
    const compiled = compileSchema(new Written(given) as never, "input", "x");
    expect(compiled.jsonSchema).toBe(given);
    expect(compiled.nodes).toBe(3);
  });
});

describe("an elicitation form with a reused field", () => {
  it.each(REVISIONS)(
    "asks with the field inlined in each place (%s): a zod v3 form once had a $ref, which no form may hold",
    async (protocolVersion) => {
      const seat = z3.enum(["aisle", "window"]);
      const server = createServer({ name: "ask", version: "1.0.0" });
      server.tool({
        name: "book",
        description: "d",
        handler: async (_args, ctx) => {
          const answer = await ctx.elicit({ message: "Seats?", schema: { first: seat, second: seat } });
          return answer.action === "accept" ? `${answer.content.first}+${answer.content.second}` : answer.action;
        },
      });
      const client = await createTestClient(server, {
        protocolVersion,
        elicit: async () => ({ action: "accept", content: { first: "aisle", second: "window" } }),
      });
      const exchange = await client.exchange("tools/call", { name: "book", arguments: {} });
      expect(exchange.result.content).toEqual([{ type: "text", text: "aisle+window" }]);
      const choice = { type: "string", enum: ["aisle", "window"] };
      expect(exchange.requests[0]?.params).toMatchObject({
        requestedSchema: { type: "object", properties: { first: choice, second: choice } },
      });
      expect(refsIn(exchange.requests[0]?.params)).toEqual([]);
    },
  );
});

describe("a library's schema identifiers are not listed", () => {
  // zod v4 writes `.meta({ $id })` (or `$anchor` …) into the part: inlined twice, one document would name two
  // resources alike (Ajv refuses it), and a `$ref` under a nested `$id` would resolve against it, not the root.
  it.each([{ $id: "urn:part" }, { $anchor: "part" }, { $dynamicAnchor: "part" }, { $schema: "https://x.test/s" }])(
    "zod v4 .meta(%j) on a part used twice, and on a recursive one, lists valid 2020-12 without it",
    async (meta) => {
      const part = z.object({ x: z.string() }).meta(meta as never);
      const tree: z.ZodType = z
        .object({
          n: z.string(),
          get kids() {
            return z.array(tree);
          },
        })
        .meta(meta as never);
      const server = createServer({ name: "ids", version: "1" });
      server.tool({ name: "twice", description: "d", input: { a: part, b: part }, handler: () => "ok" });
      server.tool({ name: "tree", description: "d", input: { tree }, handler: () => "ok" });
      for (const list of await listed(server)) {
        for (const name of ["twice", "tree"]) {
          const schema = list[name]?.inputSchema;
          expect(JSON.stringify(schema)).not.toContain(Object.keys(meta)[0]);
          const ajv = expectValid2020(schema);
          expect(
            ajv.validate(
              schema as object,
              name === "twice" ? { a: { x: "1" }, b: { x: 2 } } : { tree: { n: "a", kids: [{ n: 1, kids: [] }] } },
            ),
          ).toBe(false);
        }
      }
      const client = await createTestClient(server);
      expect((await client.callTool("twice", { a: { x: "1" }, b: { x: "2" } })).isError).toBeFalsy();
    },
  );
});

describe("only recursion keeps $defs and $ref", () => {
  const Node4: z.ZodType = z.object({
    value: z.number(),
    get children() {
      return z.array(Node4);
    },
  });
  const Lazy4: z.ZodType = z.lazy(() => z.object({ name: z.string(), parts: z.array(Lazy4) }));
  const Tree3: z3.ZodTypeAny = z3.lazy(() => z3.object({ v: z3.number(), kids: z3.array(Tree3) }));

  it.each([
    ["zod v4 getter", { tree: Node4, other: Node4 }],
    ["zod v4 z.lazy", { tree: Lazy4 }],
    ["zod v3 z.lazy", { tree: Tree3, other: Tree3 }],
  ])("%s: the recursive part is one $defs entry, every $ref points into $defs and resolves", async (_label, input) => {
    const server = createServer({ name: "rec", version: "1.0.0" });
    server.tool({ name: "walk", description: "d", input: input as never, handler: () => "" });
    for (const list of await listed(server)) {
      const schema = list.walk?.inputSchema as Record<string, unknown>;
      const refs = refsIn(schema);
      expect(refs.length).toBeGreaterThan(0);
      for (const ref of refs) expect(ref).toMatch(/^#\/\$defs\/[^/]+$/);
      expect(Object.keys(schema.$defs as object)).toHaveLength(1);
      const ajv = expectValid2020(schema);
      const leaf = "v" in ((Object.values(schema.$defs as object)[0] as { properties: object }).properties ?? {});
      const good = leaf ? { v: 1, kids: [{ v: 2, kids: [] }] } : { value: 1, children: [{ value: 2, children: [] }] };
      const named = "name" in ((Object.values(schema.$defs as object)[0] as { properties: object }).properties ?? {});
      const tree = named ? { name: "a", parts: [{ name: "b", parts: [] }] } : good;
      expect(
        ajv.validate(schema, { tree, ...("other" in input ? { other: tree } : {}) }),
        JSON.stringify(ajv.errors),
      ).toBe(true);
      expect(ajv.validate(schema, { tree: { parts: [{}] }, other: {} })).toBe(false);
    }
  });

  it("a schema that is recursive at its root refers to itself as #", async () => {
    const server = createServer({ name: "rec", version: "1.0.0" });
    server.tool({ name: "walk", description: "d", input: Node4 as never, handler: () => "" });
    const [list] = await listed(server);
    expect(refsIn(list?.walk)).toEqual(["#"]);
    expectValid2020(list?.walk?.inputSchema);
  });
});

describe("inlining is bounded", () => {
  // zod v3 objects also list `additionalProperties: false`, a schema node of its own.
  it.each([
    ["zod v4", doublingV4, ["32,768", "2,199,023,255,552"]],
    ["zod v3", doublingV3, ["49,152", "3,298,534,883,328"]],
  ] as const)(
    "%s: a schema that doubles per level is refused at registration, naming the tool, its size and the bound; the other tools list",
    async (_label, doubling, sizes) => {
      const server = createServer({ name: "big", version: "1.0.0" });
      server.tool({ name: "small", description: "d", input: { a: z.string() }, handler: () => "" });
      // 2^40 leaves: refused at once, never made (the conversion and the count are linear in the schema objects).
      for (const [index, depth] of [14, 40].entries()) {
        const define = () =>
          server.tool({
            name: `dag${depth}`,
            description: "d",
            input: { dag: doubling(depth) } as never,
            handler: () => "",
          });
        expect(define).toThrow(DefinitionError);
        expect(define).toThrow(
          `Tool "dag${depth}" input's JSON Schema lists ${sizes[index]} schema nodes once its reused parts are inlined, over the bound of 10,000; reuse fewer sub-schemas, or raise createServer({ maxSchemaNodes })`,
        );
      }
      for (const list of await listed(server)) expect(Object.keys(list)).toEqual(["small"]);
    },
  );

  it("maxSchemaNodes raises the bound; within it the doubled schema lists inlined", async () => {
    const server = createServer({ name: "big", version: "1.0.0", maxSchemaNodes: 40_000 });
    server.tool({ name: "dag", description: "d", input: { dag: doublingV4(14) } as never, handler: () => "ok" });
    const [list] = await listed(server);
    expect(refsIn(list?.dag)).toEqual([]);
    expect(JSON.stringify(list?.dag?.inputSchema).match(/"type":"string"/g)).toHaveLength(2 ** 14);
    const low = createServer({ name: "small", version: "1.0.0", maxSchemaNodes: 2 });
    expect(() =>
      low.tool({ name: "two", description: "d", input: { a: z.string(), b: z.string() }, handler: () => "" }),
    ).toThrow(
      /^Tool "two" input's JSON Schema lists 3 schema nodes once its reused parts are inlined, over the bound of 2;/,
    );
    expect(() => createServer({ name: "x", version: "1", maxSchemaNodes: 0 })).toThrow(
      /maxSchemaNodes must be at least 1/,
    );
  });

  it("a schema left for its first list is surely within the bound: a wide or reused one is measured at registration", async () => {
    const wide = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`f${i}`, z.string()]));
    const fields = compileSchema(wide, "input", "wide");
    expect(fields.deferred).toBe(false);
    const small = compileSchema({ a: z.string(), b: z.array(z.object({ c: z.number().nullable() })) }, "input", "s");
    expect(small.deferred).toBe(true);
    expect(small.nodes).toBeLessThanOrEqual(DEFERRED_NODES);
    const reused = compileSchema({ d: doublingV4(8) }, "input", "r");
    expect(reused.deferred).toBe(false);
    expect(reused.nodes).toBe(2 ** 9 - 1 + 1);
  });
});

describe("inlineRefs", () => {
  it("counts a shared part once per place, and leaves a schema without references as it is", () => {
    const plain = { type: "object", properties: { a: { type: "string" } } };
    expect(inlineRefs(plain)).toEqual({ schema: plain, nodes: 2 });
    const shared = inlineRefs({
      type: "object",
      properties: { a: { $ref: "#/$defs/x" }, b: { $ref: "#/$defs/x" } },
      $defs: { x: { type: "array", items: { type: "string" } } },
    });
    expect(shared.nodes).toBe(5);
    expect(shared.schema).toEqual({
      type: "object",
      properties: { a: { type: "array", items: { type: "string" } }, b: { type: "array", items: { type: "string" } } },
    });
  });

  it("a reference beside other keywords keeps both: annotations override, the rest go under allOf", () => {
    const { schema } = inlineRefs({
      type: "object",
      properties: { a: { $ref: "#/$defs/n", minimum: 0 }, b: { $ref: "#/$defs/n", title: "B" } },
      $defs: { n: { type: "number", minimum: 5, title: "N" } },
    });
    expect(schema.properties).toEqual({
      a: { allOf: [{ type: "number", minimum: 5, title: "N" }, { minimum: 0 }] },
      b: { type: "number", minimum: 5, title: "B" },
    });
  });
});
