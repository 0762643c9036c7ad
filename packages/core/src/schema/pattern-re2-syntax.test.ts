import { toStandardJsonSchema } from "@valibot/to-json-schema";
import { type } from "arktype";
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import * as z3 from "zod/v3";
import "./zod-v3.js";
import type { AnySchema } from "../index.js";
import { createServer } from "../server/server.js";
import { createTestClient } from "../testing/client.js";
import { definitionError } from "../testing/expect-errors.test-util.js";
import { jsonSchema } from "./json-schema.js";

// A pattern valid in JavaScript that RE2 spells otherwise (`\p{Script=Greek}`, `\p{ASCII}`, a named group) is
// rewritten for RE2, and one RE2 cannot compile at all (a property its tables lack, repeats nested past 1000) is
// refused at registration: a library's pattern was compiled on its first call, which then failed as a bare -32603.

type Library = [name: string, build: (regex: RegExp) => AnySchema];
const LIBRARIES: Library[] = [
  ["zod v4", (regex) => z.object({ code: z.string().regex(regex) })],
  ["zod v3", (regex) => z3.object({ code: z3.string().regex(regex) }) as never],
  ["ArkType", (regex) => type({ code: type("string").and(type(regex)) }) as never],
  // Valibot lists no RegExp with flags: it gets each pattern without the u flag, where it needs none.
  ["Valibot", (regex) => toStandardJsonSchema(v.object({ code: v.pipe(v.string(), v.regex(regex)) })) as never],
  [
    "jsonSchema()",
    (regex) => jsonSchema({ type: "object", properties: { code: { type: "string", pattern: regex.source } } }),
  ],
];

// What a library is given: Valibot each pattern without flags, and only those that mean the same without the u flag.
function casesFor<Case extends [string, RegExp, ...unknown[]]>(name: string, cases: Case[]): Case[] {
  if (name !== "Valibot") return cases;
  return cases
    .filter(([, regex]) => !/\\[pP]\{/.test(regex.source))
    .map(([construct, regex, ...rest]) => [construct, new RegExp(regex.source), ...rest] as Case);
}

function lookup(input: AnySchema) {
  const server = createServer({ name: "re2-syntax", version: "1" });
  server.tool({ name: "lookup", description: "Look up a code", input, handler: ({ code }) => `found ${code}` });
  return server;
}

async function answer(input: AnySchema, code: string): Promise<string> {
  const client = await createTestClient(lookup(input), { protocolVersion: "2026-07-28" });
  const result = await client.callTool("lookup", { code });
  return (result.content[0] as { text: string }).text;
}

const WORKS: [name: string, regex: RegExp, good: string, bad: string][] = [
  ["\\p{ASCII}", /^\p{ASCII}+$/u, "plain", "naïve"],
  ["\\p{Any}", /^a\p{Any}b$/u, "a\nb", "ab"],
  ["\\p{Script=Greek}", /^\p{Script=Greek}+$/u, "Ωμέγα", "omega"],
  ["\\p{sc=Greek}", /^\p{sc=Greek}+$/u, "Ωμέγα", "omega"],
  ["\\p{sc=Grek} (a script's code)", /^\p{sc=Grek}+$/u, "Ωμέγα", "omega"],
  ["\\p{Letter} (a category's long name)", /^\p{Letter}+$/u, "Ωmega", "Ω1"],
  ["\\p{gc=Lu}", /^\p{gc=Lu}+$/u, "ΩA", "Ωa"],
  ["\\p{General_Category=Decimal_Number}", /^\p{General_Category=Decimal_Number}+$/u, "12٣", "1a"],
  ["\\p{Alpha} (a binary property's alias)", /^\p{Alpha}+$/u, "Ωmega", "Ω-"],
  ["\\p{White_Space}", /^a\p{White_Space}b$/u, "a\u3000b", "a_b"],
  ["\\P{Script=Latin}", /^\P{Script=Latin}+$/u, "Ω1", "Ωa"],
  ["a property in a class", /^[\p{sc=Cyrl}\d]+$/u, "Москва1", "Moskva"],
  ["a named group whose name RE2 refuses", /^(?<$x>a)(?<ü>b)$/u, "ab", "aa"],
  ["[\\b] (a backspace)", /^a[\b]$/u, "a\b", "ab"],
  ["a surrogate pair in escapes (one code point)", /^\uD83D\uDE00$/u, "😀", "a"],
  // RE2 multiplies nested repeat counts (2 × 250 × 2), and drops what repeats {0} times (2 × 0 × 600).
  ["repeats nested within RE2's bounds", /^(?:(?:a{600}){0}(?:b{2}){250}){2}$/u, "b".repeat(1000), "b".repeat(998)],
];

describe.each(LIBRARIES)("%s: a JavaScript pattern RE2 spells otherwise", (name, build) => {
  it.each(casesFor(name, WORKS))("%s matches as the RegExp does", async (_construct, regex, good, bad) => {
    expect([regex.test(good), regex.test(bad)]).toEqual([true, false]);
    const input = build(regex);
    expect(await answer(input, good)).toBe(`found ${good}`);
    expect(await answer(input, bad)).toMatch(/- code: /);
  });
});

describe("jsonSchema(): duplicate group names (ES2025), which RE2 refuses", () => {
  it("match as a RegExp reads them", async () => {
    const input = jsonSchema({
      type: "object",
      properties: { code: { type: "string", pattern: "^(?:(?<y>\\d{4})-\\d\\d|\\d\\d-(?<y>\\d{4}))$" } },
    });
    expect(await answer(input, "2024-01")).toBe("found 2024-01");
    expect(await answer(input, "01-2024")).toBe("found 01-2024");
    expect(await answer(input, "01-01")).toMatch(/- code: must match pattern/);
  });
});

const REFUSED: [name: string, regex: RegExp, why: RegExp][] = [
  [
    "a binary property RE2 lacks",
    /^\p{ID_Start}+$/u,
    /uses \\p\{ID_Start\}, a property RE2 lacks: RE2 knows the general/,
  ],
  ["Script_Extensions", /^\p{scx=Greek}+$/u, /uses \\p\{scx=Greek\}, Script_Extensions, which RE2 lacks/],
  ["repeats nested past 1000", /^(?:a{100}){11}$/u, /uses repeats nested to more than 1000 in all/],
  ["groups nested 201 deep", new RegExp(`^${"(?:a".repeat(201)}${")".repeat(201)}$`, "u"), /nested over 200 deep/],
  ["a pattern too large for RE2", new RegExp(`^${"(?:\\w{1000})".repeat(1001)}$`, "u"), /a size over RE2's bound/],
];

describe.each(LIBRARIES)("%s: a JavaScript pattern RE2 cannot compile", (name, build) => {
  it.each(casesFor(name, REFUSED))(
    "%s is refused at registration, naming the tool and the pattern",
    (_construct, regex, why) => {
      const error = definitionError(() => lookup(build(regex)));
      expect(error.message).toMatch(/^Tool "lookup" input/);
      expect(error.message).toContain(JSON.stringify(regex.source).slice(0, 40));
      expect(error.message).toMatch(why);
    },
  );
});

describe("refused at registration, saying what to write", () => {
  it("jsonSchema(): a script named alone, which a client's RegExp refuses too", () => {
    const input = jsonSchema({ type: "object", properties: { code: { type: "string", pattern: "^\\p{Greek}+$" } } });
    // biome-ignore lint/complexity/useRegexLiterals: as a literal, it would not even compile.
    expect(() => new RegExp("^\\p{Greek}+$", "u")).toThrow(SyntaxError);
    expect(definitionError(() => lookup(input)).message).toMatch(
      /uses \\p\{Greek\}, a script named alone, which a RegExp refuses: write \\p\{Script=Greek\}/,
    );
  });

  it.each(LIBRARIES.slice(0, 3))("%s: \\P{…} with the i flag, which RE2 and a RegExp read apart", (_name, build) => {
    // A RegExp negates before folding case: /\P{Lu}/iu matches "A" (its lower case is not Lu); RE2 after.
    expect(/^\P{Lu}$/iu.test("A")).toBe(true);
    expect(definitionError(() => lookup(build(/^\P{Lu}+$/iu))).message).toMatch(
      /uses \\P\{Lu\} with the i flag, .*: write \[\^\\p\{Lu\}\] or drop the i flag/,
    );
  });
});
