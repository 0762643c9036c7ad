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

// RE2 only keeps strings that do not match from a library's RegExp. A pattern the RegExp searches for (not anchored at
// its start) is tried at every position of a string that matches too: with a repeat, that costs a power of the
// string's length (27 characters against (\w+\s?)*$, which every string matches, held V8 for 7 s; 100,000 against
// [a-z]+@, 16 s). Such a pattern is refused at registration.

type Library = [name: string, build: (regex: RegExp) => AnySchema];
const LIBRARIES: Library[] = [
  ["zod v4", (regex) => z.object({ code: z.string().regex(regex) })],
  ["zod v3", (regex) => z3.object({ code: z3.string().regex(regex) }) as never],
  ["ArkType", (regex) => type({ code: type("string").and(type(regex)) }) as never],
  ["Valibot", (regex) => toStandardJsonSchema(v.object({ code: v.pipe(v.string(), v.regex(regex)) })) as never],
];

function lookup(input: AnySchema) {
  const server = createServer({ name: "search", version: "1" });
  server.tool({ name: "lookup", description: "Look up a code", input, handler: ({ code }) => `found ${code}` });
  return server;
}

describe.each(LIBRARIES)("%s: a searched pattern that repeats", (_name, build) => {
  it.each([
    ["nested repeats", /(\w+\s?)*$/, '"(\\\\w+"'],
    ["one repeat before more", /[a-z]+@/, '"[a-z]+"'],
    ["a counted repeat", /x\d{2,5}/, '"x\\\\d{2,5}"'],
    ["an alternative without ^", /^a+|b/, '"^a+"'],
    ["an anchored group's alternative", /(^a|b)+/, '"(^a|b)+"'],
  ])("is refused at registration: %s", (_case, regex, repeat) => {
    const message = definitionError(() => lookup(build(regex))).message;
    expect(message).toMatch(/^Tool "lookup" input has pattern ".*", which the library's RegExp searches for/);
    expect(message).toContain(`and which repeats (${repeat})`);
    expect(message).toMatch(/anchor it at the start \(\^…\), or use jsonSchema\(\)/);
  });
});

describe("the m flag lets ^ match after any line break: searched too", () => {
  it.each(LIBRARIES.filter(([name]) => name !== "Valibot"))("%s", (_name, build) => {
    expect(definitionError(() => lookup(build(/^a+$/m))).message).toMatch(/or the m flag lets \^ match/);
  });
});

describe.each(["2026-07-28", "2025-11-25"] as const)("patterns that stay (%s)", (protocolVersion) => {
  const kept: [string, RegExp, string, string][] = [
    ["anchored, nested repeats", /^(\w+\s?)*$/, "two words", "two words!"],
    ["anchored at the start only", /^[a-z]+@/, "me@x", "@x"],
    ["searched, nothing repeated", /\d/, "a1", "ab"],
    ["searched, an optional part", /ab?c/, "xacx", "xabbc"],
    ["escaped repeat characters", /a\+b\*/, "xa+b*", "ab"],
    ["repeat characters in a class", /[+*]/, "1+1", "11"],
    ["every alternative anchored", /^a+$|^b+$/, "bb", "ab"],
  ];
  it.each(LIBRARIES.flatMap(([name, build]) => kept.map((row) => [name, build, ...row] as const)))(
    "%s: %s",
    async (_name, build, _case, regex, good, bad) => {
      const client = await createTestClient(lookup(build(regex)), { protocolVersion });
      const text = async (code: string) =>
        ((await client.callTool("lookup", { code })).content[0] as { text: string }).text;
      expect(await text(good)).toBe(`found ${good}`);
      expect(await text(bad)).toMatch(/- code: must match pattern/);
    },
  );
});

describe("a string past the max length beside a pattern never reaches the library's RegExp", () => {
  // Anchored, yet two repeats over the same letters cost the square of the length (100,000 characters: 10 s); the
  // library runs its max length side by side with the pattern, so core refuses the long string first.
  const bounded: [string, (regex: RegExp) => AnySchema][] = [
    ["zod v4", (regex) => z.object({ code: z.string().regex(regex).max(100) })],
    ["zod v3", (regex) => z3.object({ code: z3.string().regex(regex).max(100) }) as never],
    [
      "Valibot",
      (regex) =>
        toStandardJsonSchema(v.object({ code: v.pipe(v.string(), v.regex(regex), v.maxLength(100)) })) as never,
    ],
  ];
  it.each(bounded)("%s", async (_name, build) => {
    const regex = /^.*[a-z]+@/;
    const ran: string[] = [];
    const test = regex.test.bind(regex);
    regex.test = (text: string) => ran.push(text) > 0 && test(text);
    const client = await createTestClient(lookup(build(regex)));
    const text = async (code: string) =>
      ((await client.callTool("lookup", { code })).content[0] as { text: string }).text;
    expect(await text(`a@${"a".repeat(30_000)}!`)).toMatch(/- code: must NOT have more than 100 characters$/);
    expect(ran).toEqual([]);
    // Counted in code points, as JSON Schema and zod v4 do (zod v3 and Valibot count UTF-16 units, refusing it).
    expect(await text(`a@${"😀".repeat(98)}`)).toMatch(/^found a@😀|- code: .*100/);
    expect(ran).toHaveLength(1);
    expect(await text("me@x")).toBe("found me@x");
  });
});
