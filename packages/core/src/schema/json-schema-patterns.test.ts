import { describe, expect, it } from "vitest";
import { createServer } from "../index.js";
import { createTestClient } from "../testing/client.js";
import { definitionError } from "../testing/expect-errors.test-util.js";
import { jsonSchema } from "./json-schema.js";

// A raw JSON Schema's `pattern` and `patternProperties` run on RE2 (linear time), never on a backtracking RegExp:
// a client's string cannot stall the server, and a pattern RE2 cannot run is refused at registration.

// 33 characters held a process for 33 s when Ajv ran this pattern as a RegExp (issue 24).
const HOSTILE = `${"a".repeat(32)}!`;

function run(schema: ReturnType<typeof jsonSchema>, value: unknown) {
  return schema["~standard"].validate(value);
}

describe("jsonSchema: patterns in linear time", () => {
  it("answers a hostile string against a backtracking pattern at once, and still matches what fits", () => {
    const schema = jsonSchema({ type: "string", pattern: "^(a+)+$" });
    expect(run(schema, HOSTILE).issues?.[0]?.message).toBe('must match pattern "^(a+)+$"');
    expect(run(schema, "a".repeat(32))).toEqual({ value: "a".repeat(32) });
  });

  it("runs patternProperties' keys on RE2 too", () => {
    const schema = jsonSchema({
      type: "object",
      patternProperties: { "^(a+)+$": { type: "integer" } },
      additionalProperties: false,
    });
    expect(run(schema, { aaa: 1 })).toEqual({ value: { aaa: 1 } });
    expect(run(schema, { [HOSTILE]: 1 }).issues).toHaveLength(1);
  });

  it("searches, as ECMA-262 does, and reads `.`, `\\s`, `\\u` escapes and named groups as ECMA-262 does", () => {
    const cases: [string, string, boolean][] = [
      ["b", "abc", true],
      ["^b", "abc", false],
      ["^.$", "\r", false],
      ["^.$", "\u2028", false],
      ["^.$", "é", true],
      ["^.$", "😀", true],
      ["^\\s$", "\u00a0", true],
      ["^\\S$", "\u3000", false],
      ["^\\u0041$", "A", true],
      ["^\\u{1F600}$", "😀", true],
      ["^(?<year>\\d{4})$", "2024", true],
      ["^\\p{L}+$", "Ωmega", true],
      ["^[^]$", "\n", true],
      ["^a{2,1000}$", "aa", true],
    ];
    for (const [pattern, text, fits] of cases) {
      const result = run(jsonSchema({ type: "string", pattern }), text);
      expect([pattern, text, result.issues === undefined]).toEqual([pattern, text, fits]);
    }
  });
});

describe("jsonSchema: a pattern RE2 cannot run is refused at registration", () => {
  const cases: [string, string, RegExp][] = [
    ["a lookahead", "^(?=.*\\d)\\w+$", /uses a lookaround \(\(\?=…\)/],
    ["a negative lookbehind", "(?<!x)y", /uses a lookaround \(\(\?<!…\)/],
    ["a backreference", "^(a)\\1$", /uses a backreference/],
    ["a named backreference", "^(?<x>a)\\k<x>$", /uses a backreference/],
    ["a repeat over 1000", "^a{1001}$", /a repeat count over 1000/],
  ];
  it.each(cases)("%s, in pattern and in patternProperties, naming the tool and what to do", (_name, pattern, why) => {
    for (const schema of [
      { type: "object", properties: { code: { type: "string", pattern } } },
      { type: "object", patternProperties: { [pattern]: { type: "string" } } },
    ]) {
      const server = createServer({ name: "patterns", version: "1" });
      const error = definitionError(() =>
        server.tool({
          name: "lookup",
          description: "Look up",
          input: jsonSchema(schema as never),
          handler: () => "ok",
        }),
      );
      expect(error.message).toMatch(/^Tool "lookup" input: the JSON Schema has a pattern "/);
      expect(error.message).toMatch(why);
      expect(error.message).toMatch(/linear-time \(RE2\) engine.*rewrite it without lookarounds and backreferences/);
    }
  });
});

describe.each(["2026-07-28", "2025-11-25"] as const)("a hostile argument through a server (%s)", (protocolVersion) => {
  it("is answered as a bad argument at once, and the server goes on", async () => {
    const server = createServer({ name: "patterns", version: "1" });
    server.tool({
      name: "lookup",
      description: "Look up a code",
      input: jsonSchema({ type: "object", properties: { code: { type: "string", pattern: "^(a+)+$" } } }),
      handler: ({ code }) => `found ${String(code)}`,
    });
    const client = await createTestClient(server, { protocolVersion });
    const bad = await client.callTool("lookup", { code: HOSTILE }).catch((error: Error) => error.message);
    expect(JSON.stringify(bad)).toContain('must match pattern \\"^(a+)+$\\"');
    expect((await client.callTool("lookup", { code: "aaa" })).content).toEqual([{ type: "text", text: "found aaa" }]);
  });
});
