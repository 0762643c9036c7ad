import { toStandardJsonSchema } from "@valibot/to-json-schema";
import { type } from "arktype";
import * as v from "valibot";
import { describe, expect, expectTypeOf, it } from "vitest";
import type { AnySchema } from "../index.js";
import { createServer } from "../server/server.js";
import { createTestClient } from "../testing/client.js";
import { definitionError } from "../testing/expect-errors.test-util.js";

// Everywhere a schema is taken, ArkType and Valibot (Standard JSON Schema) work as zod does: a tool's output, a
// prompt's arguments, an elicitation form, a resource template's variables.

function rpcMessage(promise: Promise<unknown>): Promise<string> {
  return promise.then(
    () => {
      throw new Error("expected a JSON-RPC error");
    },
    (error: Error) => error.message,
  );
}

describe.each([
  ["ArkType", type({ total: "number", "note?": "string" })],
  ["Valibot", toStandardJsonSchema(v.object({ total: v.number(), note: v.optional(v.string()) }))],
] as [string, AnySchema][])("a %s tool output", (_label, output) => {
  function server(result: unknown) {
    const s = createServer({ name: "std", version: "1" });
    s.tool({ name: "sum", description: "Sums", output, handler: () => result as never });
    return s;
  }

  it("is listed as outputSchema and checks structuredContent", async () => {
    const client = await createTestClient(server({ total: 3 }));
    expect((await client.listTools())[0]?.outputSchema).toMatchObject({
      type: "object",
      properties: { total: { type: "number" }, note: { type: "string" } },
      required: ["total"],
    });
    expect(await client.callTool("sum")).toMatchObject({ structuredContent: { total: 3 } });
  });

  it("refuses structured content that does not match, naming the field", async () => {
    const client = await createTestClient(server({ total: "three" }));
    expect(await client.callTool("sum")).toMatchObject({
      isError: true,
      content: [
        {
          type: "text",
          text: 'Tool "sum" returned structured content that does not match its output schema:\n- total: expected number, received string',
        },
      ],
    });
  });
});

describe.each([
  ["ArkType", type({ topic: "string", "tone?": "'dry' | 'warm'" })],
  ["Valibot", toStandardJsonSchema(v.object({ topic: v.string(), tone: v.optional(v.picklist(["dry", "warm"])) }))],
] as [string, AnySchema][])("%s prompt arguments", (_label, args) => {
  function server() {
    const s = createServer({ name: "std", version: "1" });
    s.prompt({ name: "brief", args, handler: (given) => JSON.stringify(given) });
    return s;
  }

  it("are listed as string arguments, required as the schema says", async () => {
    const client = await createTestClient(server());
    const [prompt] = await client.listPrompts();
    expect(prompt?.arguments).toEqual(
      expect.arrayContaining([
        { name: "topic", required: true },
        { name: "tone", required: false },
      ]),
    );
    expect(prompt?.arguments).toHaveLength(2);
  });

  it("are validated by the library: a missing one and a value outside the choices are refused", async () => {
    const client = await createTestClient(server());
    const got = await client.getPrompt("brief", { topic: "tea", tone: "dry" });
    expect(got.messages[0]?.content).toEqual({ type: "text", text: JSON.stringify({ topic: "tea", tone: "dry" }) });
    expect(await rpcMessage(client.getPrompt("brief", {}))).toBe('Prompt "brief" is missing required argument "topic"');
    expect(await rpcMessage(client.getPrompt("brief", { topic: "tea", tone: "loud" }))).toMatch(
      /^Invalid arguments for prompt "brief":\n- tone: \S/,
    );
  });
});

it("a prompt argument that is no string is refused at registration, for ArkType as for zod", () => {
  const s = createServer({ name: "std", version: "1" });
  const error = definitionError(() => s.prompt({ name: "p", args: type({ n: "number" }), handler: () => "" }));
  expect(error.message).toMatch(/^Prompt "p" argument "n" is not a string schema/);
  // The way out is told for the library in hand, not only zod's.
  expect(error.message).toContain('ArkType: "string"');
});

describe.each([
  ["ArkType", type({ name: "string", plan: "'free' | 'pro'", "age?": "number.integer" })],
  [
    "Valibot",
    toStandardJsonSchema(
      v.object({
        name: v.string(),
        plan: v.picklist(["free", "pro"]),
        age: v.optional(v.pipe(v.number(), v.integer())),
      }),
    ),
  ],
] as [string, AnySchema][])("a %s elicitation form", (_label, schema) => {
  function server() {
    const s = createServer({ name: "std", version: "1" });
    s.tool({
      name: "signup",
      description: "Asks for details",
      handler: async (_args, ctx) => {
        try {
          const answer = await ctx.elicit({ message: "Details?", schema: schema as never });
          return JSON.stringify(answer);
        } catch (error) {
          return (error as Error).message;
        }
      },
    });
    return s;
  }

  it("is sent as a flat form made from its JSON Schema", async () => {
    const client = await createTestClient(server(), {
      protocolVersion: "2025-11-25",
      elicit: async () => ({ action: "accept", content: { name: "Ada", plan: "pro" } }),
    });
    const exchange = await client.exchange("tools/call", { name: "signup" });
    const requested = exchange.requests[0]?.params.requestedSchema as Record<string, unknown>;
    expect(requested.type).toBe("object");
    expect([...(requested.required as string[])].sort()).toEqual(["name", "plan"]);
    expect(requested.properties).toEqual({
      name: { type: "string" },
      plan: expect.objectContaining({ enum: ["free", "pro"] }),
      age: { type: "integer" },
    });
    expect(exchange.result.content).toEqual([
      { type: "text", text: JSON.stringify({ action: "accept", content: { name: "Ada", plan: "pro" } }) },
    ]);
  });

  it("has its answer checked by the library", async () => {
    const client = await createTestClient(server(), {
      elicit: async () => ({ action: "accept", content: { name: "Ada", plan: "gold" } }),
    });
    const result = await client.callTool("signup");
    expect((result.content[0] as { text: string }).text).toMatch(
      /^The client's answer to "Details\?" does not fit the requested schema:\n- plan: \S/,
    );
  });
});

describe.each([
  ["ArkType", type({ id: "string.numeric" })],
  ["Valibot", toStandardJsonSchema(v.object({ id: v.pipe(v.string(), v.digits()) }))],
] as [string, AnySchema][])("%s resource template variables", (_label, input) => {
  function server() {
    const s = createServer({ name: "std", version: "1" });
    s.resource({ uriTemplate: "notes://{id}", input, handler: (vars) => `note ${JSON.stringify(vars)}` });
    return s;
  }

  it("are checked against the template and validated by the library", async () => {
    const client = await createTestClient(server());
    expect(await client.readResource("notes://42")).toMatchObject({ contents: [{ text: 'note {"id":"42"}' }] });
    expect(await rpcMessage(client.readResource("notes://abc"))).toMatch(
      /^Invalid variables for resource template "notes:\/\/\{id\}":\n- id: \S/,
    );
  });

  it("must be exactly the template's variables", () => {
    const s = createServer({ name: "std", version: "1" });
    const error = definitionError(() => s.resource({ uriTemplate: "notes://{id}/{page}", input, handler: () => "" }));
    expect(error.message).toMatch(/\{page\} has no field in the input schema/);
  });
});

it("a template handler's variables are typed from an ArkType input", () => {
  const s = createServer({ name: "std", version: "1" });
  s.resource({
    uriTemplate: "notes://{id}",
    input: type({ id: "string" }),
    handler: (vars) => {
      expectTypeOf(vars).toEqualTypeOf<{ id: string }>();
      return vars.id;
    },
  });
});
