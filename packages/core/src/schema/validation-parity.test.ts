import { toStandardJsonSchema } from "@valibot/to-json-schema";
import { type } from "arktype";
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import * as z3 from "zod/v3";
import type { AnySchema, ProtocolVersion } from "../index.js";
import { createServer } from "../server/server.js";
import { createTestClient } from "../testing/client.js";
import { jsonSchema } from "./json-schema.js";
import "./zod-v3.js";

// The same closed tool in zod, ArkType, Valibot and raw JSON Schema, the same bad call to each, in both eras: the
// lines docs/schemas.md promises alike read byte for byte alike; the rest keep the library's words at the same path.

const ZOD = z.strictObject({
  name: z.string().max(5),
  color: z.enum(["red", "blue"]),
  home: z.strictObject({ city: z.string() }),
  tags: z.array(z.string()),
});
const ARK = type({
  "+": "reject",
  name: "string <= 5",
  color: "'red' | 'blue'",
  home: { "+": "reject", city: "string" },
  tags: "string[]",
});
const VALI = toStandardJsonSchema(
  v.strictObject({
    name: v.pipe(v.string(), v.maxLength(5)),
    color: v.picklist(["red", "blue"]),
    home: v.strictObject({ city: v.string() }),
    tags: v.array(v.string()),
  }),
);
const RAW = jsonSchema({
  type: "object",
  additionalProperties: false,
  required: ["name", "color", "home", "tags"],
  properties: {
    name: { type: "string", maxLength: 5 },
    color: { enum: ["red", "blue"] },
    home: { type: "object", additionalProperties: false, required: ["city"], properties: { city: { type: "string" } } },
    tags: { type: "array", items: { type: "string" } },
  },
} as const);
const LIBRARIES: [string, AnySchema][] = [
  ["zod", ZOD],
  ["ArkType", ARK],
  ["Valibot", VALI],
  ["JSON Schema", RAW],
];
const GOOD = { name: "ab", color: "red", home: { city: "x" }, tags: ["a"] };

// Each bad call and the one line every library answers it with.
const ALIKE: [string, Record<string, unknown>, string][] = [
  ["missing field", { ...GOOD, name: undefined }, "- name: required (expected string)"],
  ["wrong type", { ...GOOD, name: 5 }, "- name: expected string, received number"],
  ["extra key where closed", { ...GOOD, zzz: 1 }, '- (root): unrecognized key "zzz"'],
  ["nested path", { ...GOOD, home: { city: 3 } }, "- home.city: expected string, received number"],
  ["nested missing", { ...GOOD, home: {} }, "- home.city: required (expected string)"],
  ["nested extra key", { ...GOOD, home: { city: "a", q: 1 } }, '- home: unrecognized key "q"'],
  ["array index path", { ...GOOD, tags: ["a", 4] }, "- tags.1: expected string, received number"],
  [
    "__proto__ key",
    JSON.parse('{"name":"ab","color":"red","home":{"city":"x"},"tags":[],"__proto__":{"x":1}}'),
    '- (root): unrecognized key "__proto__"',
  ],
];
// Each bad call whose message stays the library's own (docs/schemas.md, "How errors read"): alike up to the path.
const OWN_WORDS: [string, Record<string, unknown>, string][] = [
  ["enum miss", { ...GOOD, color: "green" }, "- color: "],
  ["too long string", { ...GOOD, name: "abcdefgh" }, "- name: "],
];

async function answer(
  input: AnySchema,
  protocolVersion: ProtocolVersion,
  args: Record<string, unknown>,
): Promise<string> {
  const server = createServer({ name: "parity", version: "1" });
  server.tool({ name: "t", description: "d", input, handler: () => "ok" });
  const client = await createTestClient(server, { protocolVersion });
  // Through JSON, as a client sends it (an undefined field is no field).
  const result = await client.callTool("t", JSON.parse(JSON.stringify(args)));
  expect(result.isError).toBe(true);
  return (result.content[0] as { text: string }).text;
}

describe.each(["2025-11-25", "2026-07-28"] as const)("the same bad call to each library (%s)", (revision) => {
  describe.each(LIBRARIES)("%s", (_label, input) => {
    it.each(ALIKE)("%s reads as every library's", async (_case, args, line) => {
      expect(await answer(input, revision, args)).toBe(`Invalid arguments for tool "t":\n${line}`);
    });

    it.each(OWN_WORDS)("%s names the same field, in the library's own words", async (_case, args, start) => {
      const text = await answer(input, revision, args);
      expect(text.split("\n")).toHaveLength(2);
      expect(text.split("\n")[1]?.startsWith(start)).toBe(true);
    });
  });
});

describe("an extra key's name is cut, not echoed", () => {
  it.each([
    ["zod v4", z.strictObject({ a: z.string() }) as AnySchema],
    ["zod v3", z3.object({ a: z3.string() }).strict() as unknown as AnySchema],
  ])("%s: each unrecognized key on its line, cut to 64 characters", async (_label, input) => {
    const text = await answer(input, "2026-07-28", { a: "x", ["k".repeat(100_000)]: 1, c: 2 });
    expect(text).toBe(
      `Invalid arguments for tool "t":\n- (root): unrecognized key "${"k".repeat(64)}…"\n- (root): unrecognized key "c"`,
    );
  });

  it("zod v3: a client's key in a path is cut as every library's is", async () => {
    const input = z3.object({ a: z3.record(z3.string(), z3.number()) }) as unknown as AnySchema;
    const text = await answer(input, "2026-07-28", { a: { ["k".repeat(100_000)]: "x" } });
    expect(text).toBe(`Invalid arguments for tool "t":\n- a.${"k".repeat(64)}…: Expected number, received string`);
  });
});

describe("a library's message that quotes the client's value is cut, not echoed", () => {
  it.each([
    // Not patterns: a value failing a pattern is told by core (RE2 checks it before the library), not quoted.
    ["ArkType", type({ id: "'a' | 'b'" }) as AnySchema],
    ["Valibot", toStandardJsonSchema(v.object({ id: v.picklist(["a", "b"]) })) as AnySchema],
  ])("%s: a 100,000-character value comes back as 256 characters of message at most", async (_label, input) => {
    const text = await answer(input, "2026-07-28", { id: "x".repeat(100_000) });
    const [, line] = text.split("\n");
    expect(line?.startsWith("- id: ")).toBe(true);
    expect(line?.endsWith("…")).toBe(true);
    expect(line?.length).toBe("- id: ".length + 256 + 1);
  });

  it("ArkType: in a resource template's variables too", async () => {
    const server = createServer({ name: "parity", version: "1" });
    server.resource({ uriTemplate: "notes://{id}", input: type({ id: "'a' | 'b'" }), handler: () => "" });
    const client = await createTestClient(server);
    const message = await client.readResource(`notes://${"x".repeat(2_000)}`).then(
      () => "",
      (error: Error) => error.message,
    );
    expect(message).toMatch(/^Invalid variables for resource template "notes:\/\/\{id\}":\n- id: must be "a" or "b"/);
    expect(message.length).toBeLessThan(400);
  });
});

describe.each(["2025-11-25", "2026-07-28"] as const)(
  "a hostile answer to each library's elicitation form (%s)",
  (revision) => {
    const FORMS: [string, AnySchema][] = [
      ["zod", z.object({ name: z.string(), plan: z.enum(["free", "pro"]) })],
      ["ArkType", type({ name: "string", plan: "'free' | 'pro'" })],
      ["Valibot", toStandardJsonSchema(v.object({ name: v.string(), plan: v.picklist(["free", "pro"]) }))],
      [
        "JSON Schema",
        jsonSchema({
          type: "object",
          required: ["name", "plan"],
          properties: { name: { type: "string" }, plan: { type: "string", enum: ["free", "pro"] } },
        } as const),
      ],
    ];

    async function asked(schema: AnySchema, content: unknown): Promise<string> {
      const server = createServer({ name: "parity", version: "1" });
      server.tool({
        name: "signup",
        description: "d",
        handler: async (_args, ctx) => {
          const answer = await ctx.elicit({ message: "Details?", schema: schema as never });
          const given = answer.content as unknown as Record<string, unknown>;
          // Whatever the answer held, no object's prototype changed.
          expect(Object.getPrototypeOf(given)).toBe(Object.prototype);
          expect(({} as Record<string, unknown>).admin).toBeUndefined();
          return "accepted";
        },
      });
      const client = await createTestClient(server, {
        protocolVersion: revision,
        elicit: async () => ({ action: "accept", content: content as never }),
      });
      return ((await client.callTool("signup")).content[0] as { text: string }).text;
    }

    const HEAD = `The client's answer to "Details?" does not fit the requested schema:\n`;
    describe.each(FORMS)("%s", (_label, schema) => {
      it("a wrong type and a missing field read as every library's", async () => {
        expect(await asked(schema, { name: 5, plan: "pro" })).toBe(`${HEAD}- name: expected string, received number`);
        expect(await asked(schema, { plan: "pro" })).toBe(`${HEAD}- name: required (expected string)`);
      });

      it("a huge value outside the choices is refused in a short line", async () => {
        const text = await asked(schema, { name: "a", plan: "p".repeat(200_000) });
        expect(text.startsWith(`${HEAD}- plan: `)).toBe(true);
        expect(text.length).toBeLessThan(HEAD.length + 300);
      });

      it("a __proto__ key pollutes nothing", async () => {
        const content = JSON.parse('{"name":"a","plan":"pro","__proto__":{"admin":true}}');
        expect(await asked(schema, content)).toBe("accepted");
      });
    });
  },
);
