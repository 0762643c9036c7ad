import { type } from "arktype";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import * as z3 from "zod/v3";
import "./zod-v3.js";
import type { AnySchema } from "../index.js";
import { createServer } from "../server/server.js";
import { createTestClient } from "../testing/client.js";
import { definitionError } from "../testing/expect-errors.test-util.js";

// A JSON Schema lists a library's pattern without its RegExp's flags (`/^abc$/i` as "^abc$"): the check on RE2
// before the library reads the flags from the library's RegExp, so a value the author's pattern accepts is accepted.

type Library = [name: string, build: (regex: RegExp) => AnySchema];
const LIBRARIES: Library[] = [
  ["zod v4", (regex) => z.object({ code: z.string().regex(regex) })],
  ["zod v3", (regex) => z3.object({ code: z3.string().regex(regex) }) as never],
  ["ArkType", (regex) => type({ code: type("string").and(type(regex)) }) as never],
];

function lookup(input: AnySchema) {
  const server = createServer({ name: "flags", version: "1" });
  server.tool({ name: "lookup", description: "Look up a code", input, handler: ({ code }) => `found ${code}` });
  return server;
}

describe.each(["2026-07-28", "2025-11-25"] as const)("a library pattern's flags (%s)", (protocolVersion) => {
  async function answer(input: AnySchema, code: string): Promise<string> {
    const client = await createTestClient(lookup(input), { protocolVersion });
    const result = await client.callTool("lookup", { code });
    return (result.content[0] as { text: string }).text;
  }

  describe.each(LIBRARIES)("%s", (_name, build) => {
    it.each([
      ["i", /^abc$/i, "ABC", "abd"],
      ["m", /^b$/m, "a\nb", "a\nbc"],
      ["s", /^a.b$/s, "a\nb", "a\n\nb"],
      ["i and g (g changes nothing: the libraries reset lastIndex)", /^abc$/gi, "aBc", "ab"],
    ])("%s: what the author's RegExp accepts is accepted, and the rest refused", async (_flags, regex, good, bad) => {
      expect(await answer(build(regex), good)).toBe(`found ${good}`);
      expect(await answer(build(regex), bad)).toMatch(/- code: must match pattern/);
    });
  });
});

describe("flags RE2 cannot honour are refused at registration, saying what to write", () => {
  it.each([
    ["y", /^abc/y, /uses the y flag \(sticky\): start the pattern with \^ instead/],
    // biome-ignore lint/complexity/useRegexLiterals: a v-flag literal needs an es2024 target, above the tests'.
    ["v", new RegExp("^[\\p{L}--[a-z]]$", "v"), /uses the v flag/],
  ])("%s", (_flag, regex, why) => {
    expect(definitionError(() => lookup(z.object({ code: z.string().regex(regex) }))).message).toMatch(why);
  });

  it("one source with two sets of flags, which the listed schema cannot tell apart", () => {
    const input = z.object({ a: z.string().regex(/^abc$/i), b: z.string().regex(/^abc$/) });
    expect(definitionError(() => lookup(input)).message).toMatch(
      /^Tool "lookup" input has pattern "\^abc\$" with different flags \("", "i"\)/,
    );
  });
});
