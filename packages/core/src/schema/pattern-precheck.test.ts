import { toStandardJsonSchema } from "@valibot/to-json-schema";
import { type } from "arktype";
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import * as z3 from "zod/v3";
import { ARKTYPE_PATTERNS } from "./library-patterns.js";
import { patternPlan } from "./pattern-precheck.js";
import "./zod-v3.js";
import type { AnySchema } from "../index.js";
import { createServer } from "../server/server.js";
import { createTestClient } from "../testing/client.js";
import { definitionError } from "../testing/expect-errors.test-util.js";

// A library runs an author's pattern as a backtracking RegExp. Each string the listed JSON Schema holds to a pattern
// is checked on RE2 first: the library's RegExp never sees a string that does not match (where backtracking
// explodes: 33 characters against ^(a+)+$ held a process for 33 s), and a pattern that cannot be put before the
// library is refused at registration.

const HOSTILE = `${"a".repeat(32)}!`;

// The author's RegExp, told each string it is run on (zod v4, zod v3 and Valibot call its `test`).
function watched(source: string) {
  const regex = new RegExp(source);
  const ran: string[] = [];
  const test = regex.test.bind(regex);
  regex.test = (text: string) => {
    ran.push(text);
    return test(text);
  };
  return { regex, ran };
}

type Library = [name: string, build: (regex: RegExp) => AnySchema];
const LIBRARIES: Library[] = [
  ["zod v4", (regex) => z.object({ code: z.string().regex(regex) })],
  ["zod v3", (regex) => z3.object({ code: z3.string().regex(regex) }) as never],
  ["ArkType", (regex) => type({ code: type("string").and(type(regex)) }) as never],
  ["Valibot", (regex) => toStandardJsonSchema(v.object({ code: v.pipe(v.string(), v.regex(regex)) })) as never],
];

function lookup(input: AnySchema) {
  const server = createServer({ name: "patterns", version: "1" });
  server.tool({ name: "lookup", description: "Look up a code", input, handler: ({ code }) => `found ${code}` });
  return server;
}

async function answer(input: AnySchema, code: string): Promise<string> {
  const client = await createTestClient(lookup(input), { protocolVersion: "2026-07-28" });
  const result = await client.callTool("lookup", { code });
  return (result.content[0] as { text: string }).text;
}

describe.each(LIBRARIES)("%s: an author's pattern", (_name, build) => {
  it("never runs on a hostile string that does not match it: RE2 answers first", async () => {
    const { regex, ran } = watched("^(a+)+$");
    const input = build(regex);
    // Told by RE2 (each library words its own answer otherwise), and the author's RegExp never ran: no time to take.
    expect(await answer(input, "aa!")).toMatch(/- code: must match pattern "\^\(a\+\)\+\$"/);
    expect(ran).toEqual([]);
    expect(await answer(input, HOSTILE)).toMatch(/- code: must match pattern "\^\(a\+\)\+\$"/);
    expect(ran).toEqual([]);
    expect(await answer(input, "aaa")).toBe("found aaa");
  });

  it("that RE2 cannot run is refused at registration, naming the tool and what to do", () => {
    const error = definitionError(() => lookup(build(/^(?=.*\d)\w+$/)));
    expect(error.message).toMatch(
      /^Tool "lookup" input has pattern "\^\(\?=\.\*\\\\d\)\\\\w\+\$", which uses a lookaround/,
    );
    expect(error.message).toMatch(/without lookarounds and backreferences .* or use jsonSchema\(\)/);
  });
});

describe("a pattern where the library runs it on strings that need not match", () => {
  const cases: [string, AnySchema, string][] = [
    ["a zod union", z.object({ id: z.union([z.string().regex(/^(a+)+$/), z.number()]) }), "anyOf"],
    [
      "a zod loose record's keys",
      z.object({ tags: z.looseRecord(z.string().regex(/^x-/), z.string()) }),
      "patternProperties",
    ],
    ["an ArkType union", type({ id: type(/^(a+)+$/).or("number") }) as never, "anyOf"],
  ];
  it.each(cases)("%s is refused at registration", (_name, input, keyword) => {
    expect(definitionError(() => lookup(input)).message).toContain(`under "${keyword}"`);
  });

  // Every keyword that holds sub-schemas is either followed (checked on RE2 first) or refused: none is passed over.
  it.each(["additionalItems", "contentSchema", "unevaluatedItems", "dependentSchemas"])(
    "under %s in a listed schema is refused too",
    (keyword) => {
      const hostile = { type: "string", pattern: "^(a+)+$" };
      const value = keyword === "dependentSchemas" ? { x: hostile } : hostile;
      const listed = { type: "object", properties: { list: { type: "array", [keyword]: value } } };
      const error = definitionError(() => patternPlan(listed, 'Tool "t" input', () => new Set()));
      expect(error.message).toContain(`under "${keyword}"`);
    },
  );
});

describe("zod's own formats keep working: never refused, left to zod", () => {
  const v4: [string, z.ZodType, string, string][] = [
    ["email", z.email(), "a@b.co", "a@"],
    ["uuid", z.uuid(), "123e4567-e89b-12d3-a456-426614174000", "123"],
    ["url", z.url(), "https://x.dev/a", "nope"],
    ["ipv4", z.ipv4(), "10.0.0.1", "10.0.0"],
    ["ipv6", z.ipv6(), "::1", ":::"],
    ["cidrv4", z.cidrv4(), "10.0.0.0/8", "10.0.0.0"],
    ["datetime", z.iso.datetime(), "2024-01-01T00:00:00Z", "2024"],
    ["date", z.iso.date(), "2024-01-01", "2024-13-01"],
    ["duration", z.iso.duration(), "P1D", "1D"],
    ["emoji", z.emoji(), "😀", "a"],
    ["hostname", z.hostname(), "example.com", "-x-"],
    ["cuid", z.cuid(), "cjld2cjxh0000qzrmn831i7rn", "!"],
    ["base64", z.base64(), "aGk=", "a"],
    ["jwt", z.jwt(), "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.x", "a"],
    ["e164", z.e164(), "+15555550100", "555"],
    ["email or nothing", z.union([z.email(), z.literal("")]), "", "a@"],
  ];
  it.each(v4)("zod v4 %s", async (_name, code, good, bad) => {
    const input = z.object({ code });
    expect(await answer(input, good)).toBe(`found ${good}`);
    expect(await answer(input, bad)).toMatch(/^Invalid arguments|- code: /);
  });

  const v3: [string, z3.ZodTypeAny, string, string][] = [
    ["email", z3.string().email(), "a@b.co", "a@"],
    ["uuid", z3.string().uuid(), "123e4567-e89b-12d3-a456-426614174000", "123"],
    ["emoji", z3.string().emoji(), "😀", "a"],
    ["cuid", z3.string().cuid(), "cjld2cjxh0000qzrmn831i7rn", "!"],
    ["ip", z3.string().ip(), "10.0.0.1", "10.0.0"],
    ["startsWith", z3.string().startsWith("ab"), "abc", "b"],
  ];
  it.each(v3)("zod v3 %s", async (_name, code, good, bad) => {
    const input = z3.object({ code }) as never;
    expect(await answer(input, good)).toBe(`found ${good}`);
    expect(await answer(input, bad)).toMatch(/- code: /);
  });
});

describe("ArkType's own keywords keep working: their patterns RE2 cannot run are left to ArkType", () => {
  it("lists exactly ArkType's patterns for them", () => {
    const listed = ["string.integer", "string.numeric", "string.date.iso"].map(
      (name) =>
        (
          type(name as "string").toJsonSchema({ fallback: { default: (context) => context.base } }) as {
            pattern?: string;
          }
        ).pattern,
    );
    expect(new Set(listed)).toEqual(ARKTYPE_PATTERNS);
  });

  it.each([
    ["string.numeric", "1.5", "x"],
    ["string.integer", "-3", "1.5"],
    ["string.date.iso", "2024-01-01", "2024-13"],
  ])("%s", async (name, good, bad) => {
    const input = type({ code: name as "string" }) as never;
    expect(await answer(input, good)).toBe(`found ${good}`);
    expect(await answer(input, bad)).toMatch(/- code: /);
  });
});
