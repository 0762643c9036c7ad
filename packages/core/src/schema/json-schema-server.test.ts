import { describe, expect, expectTypeOf, it } from "vitest";
import { createServer, type InferInput } from "../index.js";
import { createTestClient } from "../testing/client.js";
import { definitionError, rpcError } from "../testing/expect-errors.test-util.js";
import { jsonSchema } from "./json-schema.js";

// A raw JSON Schema through core, end to end on the in-memory test client: a tool's input and output, a prompt's
// arguments, a resource template's variables and an elicitation form, in both eras.

const WEATHER = {
  type: "object",
  properties: {
    city: { type: "string", description: "Where" },
    units: { type: "string", enum: ["metric", "imperial"], default: "metric" },
    days: { type: "integer", minimum: 1, maximum: 7 },
  },
  required: ["city"],
  additionalProperties: false,
} as const;

const FORECAST = {
  type: "object",
  properties: { summary: { type: "string" }, source: { type: "string", default: "toolsmith" } },
  required: ["summary"],
} as const;

function weatherServer() {
  const server = createServer({ name: "weather", version: "1" });
  const fixed = { summary: "fixed" };
  server.tool({
    name: "forecast",
    description: "The weather for a city",
    input: jsonSchema(WEATHER),
    output: jsonSchema(FORECAST),
    handler: (args) => {
      expectTypeOf(args).toEqualTypeOf<{ city: string; units: "metric" | "imperial"; days?: number }>();
      if (args.city === "Nowhere") return { summary: 5 } as never;
      if (args.city === "Fixed") return fixed;
      return { summary: `${args.city}, ${args.units}, ${args.days ?? 1} day(s)` };
    },
  });
  return { server, fixed };
}

describe.each(["2026-07-28", "2025-11-25"] as const)("a raw JSON Schema through core (%s)", (protocolVersion) => {
  it("lists the tool's input and output schemas as the user wrote them", async () => {
    const client = await createTestClient(weatherServer().server, { protocolVersion });
    const [tool] = await client.listTools();
    expect(tool?.inputSchema).toEqual(WEATHER);
    expect(tool?.outputSchema).toEqual(FORECAST);
  });

  it("calls the handler with defaults filled in, and checks its output (defaults too, the returned object untouched)", async () => {
    const { server, fixed } = weatherServer();
    const client = await createTestClient(server, { protocolVersion });
    const result = await client.callTool("forecast", { city: "Oslo", days: 2 });
    expect(result.structuredContent).toEqual({ summary: "Oslo, metric, 2 day(s)", source: "toolsmith" });
    expect((await client.callTool("forecast", { city: "Fixed" })).structuredContent).toEqual({
      summary: "fixed",
      source: "toolsmith",
    });
    expect(fixed).toEqual({ summary: "fixed" });
    const wrong = await client.callTool("forecast", { city: "Nowhere" });
    expect(wrong.isError).toBe(true);
    expect(wrong.content).toEqual([
      {
        type: "text",
        text: 'Tool "forecast" returned structured content that does not match its output schema:\n- summary: expected string, received number',
      },
    ]);
  });

  it("refuses bad arguments with zod's lines, naming the field", async () => {
    const client = await createTestClient(weatherServer().server, { protocolVersion });
    const text = async (args: Record<string, unknown>) =>
      ((await client.callTool("forecast", args)).content[0] as { text: string }).text;
    expect(await text({})).toBe('Invalid arguments for tool "forecast":\n- city: required (expected string)');
    expect(await text({ city: 3 })).toBe(
      'Invalid arguments for tool "forecast":\n- city: expected string, received number',
    );
    expect(await text({ city: "Oslo", days: 9 })).toBe('Invalid arguments for tool "forecast":\n- days: must be <= 7');
    expect(await text({ city: "Oslo", units: "kelvin" })).toBe(
      'Invalid arguments for tool "forecast":\n- units: must be one of "metric", "imperial"',
    );
    expect(await text({ city: "Oslo", days: "2" })).toMatch(/- days: expected (integer|number), received string$/);
  });

  it("takes a prompt's arguments and a template's variables", async () => {
    const server = createServer({ name: "notes", version: "1" });
    server.prompt({
      name: "summarize",
      description: "Summarize a topic",
      args: jsonSchema({
        type: "object",
        properties: { topic: { type: "string", description: "What about", minLength: 2 } },
        required: ["topic"],
      }),
      handler: ({ topic }) => `Summarize ${topic}`,
    });
    server.resource({
      uriTemplate: "notes://{id}",
      input: jsonSchema({
        type: "object",
        properties: { id: { type: "string", pattern: "^[0-9]+$" } },
        required: ["id"],
      }),
      handler: ({ id }) => `note ${id}`,
    });
    const client = await createTestClient(server, { protocolVersion });
    const [prompt] = await client.listPrompts();
    expect(prompt?.arguments).toEqual([{ name: "topic", description: "What about", required: true }]);
    const got = await client.getPrompt("summarize", { topic: "tides" });
    expect(got.messages[0]?.content).toEqual({ type: "text", text: "Summarize tides" });
    expect((await rpcError(client.getPrompt("summarize", { topic: "x" }))).message).toMatch(
      /- topic: must NOT have fewer than 2 characters/,
    );
    expect((await client.readResource("notes://12")).contents[0]).toMatchObject({ text: "note 12" });
    await expect(client.readResource("notes://abc")).rejects.toThrow(/- id: must match pattern/);
  });

  it("asks an elicitation form written as a raw JSON Schema, and checks the answer", async () => {
    const server = createServer({ name: "seats", version: "1" });
    const form = jsonSchema({
      type: "object",
      properties: { seat: { type: "string", enum: ["aisle", "window"] }, count: { type: "integer", default: 1 } },
      required: ["seat"],
    });
    let asked: unknown;
    server.tool({
      name: "book",
      description: "Book a seat",
      handler: async (_args, ctx) => {
        const answer = await ctx.elicit({ message: "Which seat?", schema: form });
        if (answer.action !== "accept") return "not booked";
        expectTypeOf(answer.content).toEqualTypeOf<{ seat: "aisle" | "window"; count: number }>();
        return `${answer.content.count} × ${answer.content.seat}`;
      },
    });
    const client = await createTestClient(server, {
      protocolVersion,
      elicit: (params) => {
        asked = params.requestedSchema;
        return { action: "accept", content: { seat: "window" } };
      },
    });
    expect((await client.callTool("book", {})).content).toEqual([{ type: "text", text: "1 × window" }]);
    expect(asked).toEqual({
      type: "object",
      properties: { seat: { type: "string", enum: ["aisle", "window"] }, count: { type: "integer", default: 1 } },
      required: ["seat"],
    });
  });

  it("bounds how deep a value nests for a recursive schema, keeps __proto__ a plain key, and lives on", async () => {
    const server = createServer({ name: "trees", version: "1" });
    server.tool({
      name: "count",
      description: "Count a tree's nodes",
      input: jsonSchema({
        type: "object",
        properties: { tree: { $ref: "#/$defs/node" }, note: { type: "string", maxLength: 10 } },
        $defs: { node: { type: "object", properties: { kids: { type: "array", items: { $ref: "#/$defs/node" } } } } },
      }),
      handler: (args) => JSON.stringify(Object.keys(args)),
    });
    const client = await createTestClient(server, { protocolVersion });
    let tree: Record<string, unknown> = {};
    // Past core's bound (64), within what the test client's JSON.stringify writes.
    for (let level = 0; level < 2_000; level++) tree = { kids: [tree] };
    const deep = await client.callTool("count", { tree });
    expect((deep.content[0] as { text: string }).text).toMatch(/- tree: nests deeper than 64 levels/);
    const huge = await client.callTool("count", { note: "x".repeat(1_000_000) });
    expect((huge.content[0] as { text: string }).text).toBe(
      'Invalid arguments for tool "count":\n- note: must NOT have more than 10 characters',
    );
    const polluting = await client.callTool("count", JSON.parse('{"__proto__":{"admin":true},"constructor":1}'));
    expect(polluting.content).toEqual([{ type: "text", text: '["__proto__","constructor"]' }]);
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
    expect((await client.callTool("count", { tree: { kids: [] } })).isError).toBeFalsy();
  });
});

describe("a raw JSON Schema's references", () => {
  // The json-schema-2020-12 conformance scenario's shape: a definition reused, one reached through an $anchor.
  const ADDRESS = {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    type: "object",
    $defs: {
      address: { $anchor: "addressDef", type: "object", properties: { city: { type: "string" } }, required: ["city"] },
    },
    properties: { home: { $ref: "#/$defs/address" }, work: { $ref: "#addressDef" } },
    required: ["home"],
  } as const;

  it.each(["2026-07-28", "2025-11-25"] as const)(
    "are listed as written, $schema, $defs and anchors kept, and followed by validation (%s)",
    async (protocolVersion) => {
      const server = createServer({ name: "post", version: "1" });
      server.tool({ name: "send", description: "Send", input: jsonSchema(ADDRESS), handler: () => "sent" });
      const client = await createTestClient(server, { protocolVersion });
      expect((await client.listTools())[0]?.inputSchema).toEqual(ADDRESS);
      expect((await client.callTool("send", { home: { city: "Oslo" } })).content).toEqual([
        { type: "text", text: "sent" },
      ]);
      const text = async (args: Record<string, unknown>) =>
        ((await client.callTool("send", args)).content[0] as { text: string }).text;
      // Ajv's own words where a reference is an anchor, which the message reading does not follow.
      expect(await text({ home: { city: "Oslo" }, work: { city: 3 } })).toBe(
        'Invalid arguments for tool "send":\n- work.city: must be string',
      );
    },
  );

  it("are followed when issues are read: zod's words, as for an inlined schema", async () => {
    const server = createServer({ name: "post", version: "1" });
    const input = jsonSchema({
      type: "object",
      $defs: { address: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } },
      properties: { home: { $ref: "#/$defs/address" } },
    });
    server.tool({ name: "send", description: "Send", input, handler: () => "sent" });
    const client = await createTestClient(server);
    const text = async (args: Record<string, unknown>) =>
      ((await client.callTool("send", args)).content[0] as { text: string }).text;
    expect(await text({ home: {} })).toBe(
      'Invalid arguments for tool "send":\n- home.city: required (expected string)',
    );
    expect(await text({ home: { city: 3 } })).toBe(
      'Invalid arguments for tool "send":\n- home.city: expected string, received number',
    );
  });

  it("are inlined in an elicitation form, which holds no $ref", async () => {
    const server = createServer({ name: "seats", version: "1" });
    const form = jsonSchema({
      type: "object",
      $defs: { seat: { type: "string", enum: ["aisle", "window"] } },
      properties: { first: { $ref: "#/$defs/seat" }, second: { $ref: "#/$defs/seat", title: "Second" } },
      required: ["first"],
    });
    let asked: unknown;
    server.tool({
      name: "book",
      description: "Book seats",
      handler: async (_args, ctx) => {
        const answer = await ctx.elicit({ message: "Which seats?", schema: form });
        return answer.action === "accept" ? JSON.stringify(answer.content) : answer.action;
      },
    });
    const client = await createTestClient(server, {
      elicit: (params) => {
        asked = params.requestedSchema;
        return { action: "accept", content: { first: "window" } };
      },
    });
    expect((await client.callTool("book", {})).content).toEqual([{ type: "text", text: '{"first":"window"}' }]);
    const seat = { type: "string", enum: ["aisle", "window"] };
    expect(asked).toEqual({
      type: "object",
      properties: { first: seat, second: { ...seat, title: "Second" } },
      required: ["first"],
    });
  });

  it("are followed for a prompt's arguments: described, and refused when not strings", async () => {
    const server = createServer({ name: "notes", version: "1" });
    const args = (topic: Record<string, unknown>) =>
      jsonSchema({ type: "object", $defs: { topic }, properties: { topic: { $ref: "#/$defs/topic" } } });
    server.prompt({
      name: "summarize",
      description: "Summarize",
      args: args({ type: "string", description: "What about" }),
      handler: () => "ok",
    });
    const client = await createTestClient(server);
    expect((await client.listPrompts())[0]?.arguments).toEqual([
      { name: "topic", description: "What about", required: false },
    ]);
    expect(
      definitionError(() =>
        server.prompt({ name: "count", description: "Count", args: args({ type: "number" }), handler: () => "" }),
      ).message,
    ).toMatch(/^Prompt "count" argument "topic" is not a string schema/);
  });

  it("still count against maxSchemaNodes, $defs included", () => {
    const small = createServer({ name: "small", version: "1", maxSchemaNodes: 4 });
    const define = () =>
      small.tool({ name: "send", description: "Send", input: jsonSchema(ADDRESS), handler: () => "" });
    // Five nodes: the root, home, work, the definition and its city (counted where written, not per use).
    expect(definitionError(define).message).toMatch(/^Tool "send" input's JSON Schema lists 5 schema nodes/);
    const roomy = createServer({ name: "roomy", version: "1", maxSchemaNodes: 5 });
    roomy.tool({ name: "send", description: "Send", input: jsonSchema(ADDRESS), handler: () => "" });
  });
});

describe("a raw JSON Schema's definition mistakes", () => {
  it("is a DefinitionError at registration naming the tool, and nothing is fetched", () => {
    const server = createServer({ name: "bad", version: "1" });
    const define = (input: Record<string, unknown>) => () =>
      server.tool({ name: "x", description: "x", input: jsonSchema(input), handler: () => "" });
    expect(
      definitionError(define({ type: "object", properties: { a: { $ref: "https://example.com/a" } } })).message,
    ).toBe(
      'Tool "x" input: the JSON Schema refers to "https://example.com/a", which is not inside it: remote references are never fetched; put the schema under $defs and refer to it as "#/$defs/…"',
    );
    expect(definitionError(define({ $schema: "http://json-schema.org/draft-04/schema#" })).message).toMatch(
      /^Tool "x" input: the JSON Schema declares "\$schema": "http:\/\/json-schema.org\/draft-04\/schema#"; only JSON Schema 2020-12/,
    );
    expect(definitionError(define({ type: "object", properties: { a: { type: "strin" } } })).message).toMatch(
      /^Tool "x" input: the JSON Schema is not valid JSON Schema 2020-12: schema\/properties\/a\/type/,
    );
    expect(definitionError(define({ type: "string" })).message).toMatch(/^Tool "x" input must be an object schema/);
    expect(definitionError(define({ type: "object", default: {} })).message).toBe(
      `Tool "x" input: the JSON Schema is refused by Ajv's strict mode: default is ignored in the schema root`,
    );
    expect(server.registered("tool", "x")).toBeUndefined();
  });

  it("types a handler's arguments and InferInput from the schema, or from jsonSchema<T>", () => {
    const input = jsonSchema(WEATHER);
    expectTypeOf<InferInput<typeof input>>().toEqualTypeOf<{
      city: string;
      units: "metric" | "imperial";
      days?: number;
    }>();
    const stated = jsonSchema<{ id: string }>({ type: "object" });
    expectTypeOf<InferInput<typeof stated>>().toEqualTypeOf<{ id: string }>();
  });
});
