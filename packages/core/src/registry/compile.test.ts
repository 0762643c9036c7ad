import { describe, expect, it } from "vitest";
import { z } from "zod";
import * as z3 from "zod/v3";
import { createServer, type Server } from "../index.js";
import { compileSchema } from "../schema/adapters.js";
import { createTestClient } from "../testing/client.js";
import { definitionError } from "../testing/expect-errors.test-util.js";
import "../schema/zod-v3.js";

// Definitions checked at registration, each mistake a DefinitionError that says what to change, and compiled into
// what the lists show, once.

function newServer(name = "compile-test"): Server {
  return createServer({ name, version: "1.0.0" });
}

const noop = () => "ok";

// What a server with templates advertises (logging always).
const RESOURCES = { logging: {}, resources: { subscribe: true, listChanged: true } };

describe("registration mistakes throw a DefinitionError that says what to change", () => {
  for (const name of ["", "a".repeat(65), "my tool", "tool!", "tööl", "semi;colon", "new\nline"]) {
    it(`tool name ${JSON.stringify(name.length > 20 ? `${name.length} chars` : name)}`, () => {
      const error = definitionError(() => newServer().tool({ name, description: "d", handler: noop }));
      expect(error.message).toContain(JSON.stringify(name));
      expect(error.message).toMatch(/use 1–64 characters/);
    });
  }

  it("accepts a 64-character name and every allowed character", () => {
    const server = newServer();
    server.tool({ name: "a".repeat(64), description: "d", handler: noop });
    server.tool({ name: "Az09_.-", description: "d", handler: noop });
    expect(server.capabilities()).toEqual({ logging: {}, tools: { listChanged: true } });
  });

  it("a prompt name is checked the same way", () => {
    expect(definitionError(() => newServer().prompt({ name: "bad name", handler: noop })).message).toMatch(
      /Prompt name "bad name" is invalid: use 1–64 characters/,
    );
  });

  for (const description of [undefined, "", "   "]) {
    it(`tool description ${JSON.stringify(description)}`, () => {
      const error = definitionError(() =>
        newServer().tool({ name: "echo", description: description as string, handler: noop }),
      );
      expect(error.message).toMatch(/Tool "echo" has no description; add one/);
    });
  }

  for (const [label, input] of [
    ["z.string()", z.string()],
    ["z.array()", z.array(z.string())],
    ["z3.string()", z3.string()],
    ["z.number().optional()", z.number().optional()],
  ] as const) {
    it(`non-object input schema ${label}`, () => {
      const error = definitionError(() => newServer().tool({ name: "echo", description: "d", input, handler: noop }));
      expect(error.message).toMatch(/Tool "echo" input must be an object schema/);
      expect(error.message).toMatch(/z\.object/);
    });
  }

  for (const [label, args] of [
    ["z.number()", { count: z.number() }],
    ["z.boolean()", { count: z.boolean() }],
    ["z.array()", { count: z.array(z.string()) }],
    ["z.object()", { count: z.object({ a: z.string() }) }],
    ["z3.number()", { count: z3.number() }],
  ] as const) {
    it(`prompt argument that is not a string schema: ${label}`, () => {
      const error = definitionError(() => newServer().prompt({ name: "p", args, handler: noop }));
      expect(error.message).toMatch(/Prompt "p" argument "count" is not a string schema/);
      expect(error.message).toMatch(/zod: z\.string\(\)/);
    });
  }

  it("prompt arguments may be strings, enums and optional strings", () => {
    const server = newServer();
    server.prompt({
      name: "p",
      args: { a: z.string(), b: z.enum(["x", "y"]), c: z.string().optional() },
      handler: noop,
    });
    expect(server.capabilities()).toEqual({ logging: {}, prompts: { listChanged: true } });
  });

  for (const uri of ["notes", "/tmp/notes.txt", "1abc://x", ""]) {
    it(`resource uri without a scheme: ${JSON.stringify(uri)}`, () => {
      const error = definitionError(() => newServer().resource({ uri, handler: noop }));
      expect(error.message).toMatch(/needs a scheme, like "notes:\/\/all"/);
    });
  }

  it("resource template without a scheme", () => {
    const error = definitionError(() => newServer().resource({ uriTemplate: "{id}", handler: noop }));
    expect(error.message).toMatch(/needs a scheme/);
  });

  it("static uri containing a {variable}", () => {
    const error = definitionError(() => newServer().resource({ uri: "notes://{id}", handler: noop }));
    expect(error.message).toMatch(/register it with uriTemplate instead of uri/);
  });

  it("a fixed URI given a template's fields (a listCache that would go unread, a list, input, complete)", () => {
    const fixed = 'Resource "notes://all" is a fixed URI, so it takes neither input, list, complete nor listCache';
    for (const field of [
      { listCache: { ttlMs: -1, cacheScope: "nobody" } },
      { list: () => [] },
      { input: {} },
      { complete: {} },
    ]) {
      const error = definitionError(() =>
        newServer().resource({ uri: "notes://all", handler: noop, ...field } as never),
      );
      expect(error.message).toBe(`${fixed}; those are for templates like "notes://{id}"`);
    }
    const handle = newServer().resource({ uri: "notes://all", handler: noop });
    expect(
      definitionError(() => handle.update({ listCache: { ttlMs: 0, cacheScope: "public" } } as never)).message,
    ).toMatch(/^Resource "notes:\/\/all" is a fixed URI/);
  });

  it("template without variables", () => {
    const error = definitionError(() => newServer().resource({ uriTemplate: "notes://all", handler: noop }));
    expect(error.message).toMatch(/has no \{variable\}; register it with uri instead/);
  });

  it("malformed template", () => {
    const error = definitionError(() => newServer().resource({ uriTemplate: "notes://{id", handler: noop }));
    expect(error.message).toBe('URI template "notes://{id" has a "{" that is never closed');
  });

  it("a guard must be a function", () => {
    const error = definitionError(() =>
      newServer().tool({ name: "t", description: "t", guard: "admin" as never, handler: () => 1 }),
    );
    expect(error.message).toBe('Tool "t" guard must be a function of the request context that returns true to allow');
  });
});

describe("the wire form of a definition", () => {
  it("the prompt list shows each argument, required unless optional", async () => {
    const server = newServer();
    server.prompt({
      name: "greet",
      description: "Greets",
      args: { person: z.string(), mood: z.enum(["happy", "sad"]).optional() },
      handler: ({ person }) => `Hello ${person}`,
    });
    const client = await createTestClient(server, { protocolVersion: "2025-11-25" });
    expect(await client.listPrompts()).toEqual([
      {
        name: "greet",
        description: "Greets",
        arguments: [
          { name: "person", required: true },
          { name: "mood", required: false },
        ],
      },
    ]);
  });
});

describe("registration: the input's fields must be exactly the template's variables", () => {
  it("accepts a z.object and a raw shape whose fields are the variables", () => {
    const server = newServer();
    server.resource({
      uriTemplate: "notes://{folder}/{id}",
      input: z.object({ folder: z.string(), id: z.coerce.number() }),
      handler: noop,
    });
    server.resource({ uriTemplate: "tags://{tag}", input: { tag: z.string() }, handler: noop });
    expect(server.capabilities()).toEqual(RESOURCES);
  });

  it("counts query, path-segment and reserved variables", () => {
    expect(() =>
      newServer().resource({
        uriTemplate: "files://{+root}{/path*}{?rev,limit}",
        input: {
          root: z.string(),
          path: z.array(z.string()),
          rev: z.string().optional(),
          limit: z.coerce.number().optional(),
        },
        handler: noop,
      }),
    ).not.toThrow();
  });

  it("a variable with no field names the variable and the fields to use", () => {
    const error = definitionError(() =>
      newServer().resource({ uriTemplate: "notes://{folder}/{id}", input: { folder: z.string() }, handler: noop }),
    );
    expect(error.message).toContain('Resource template "notes://{folder}/{id}" input does not match its variables');
    expect(error.message).toContain("{id} has no field in the input schema");
    expect(error.message).not.toContain("{folder} has no field");
    expect(error.message).toContain(`make the schema's fields exactly "folder", "id"`);
  });

  it("a field that is not a variable is named", () => {
    const error = definitionError(() =>
      newServer().resource({
        uriTemplate: "notes://{id}",
        input: z.object({ id: z.string(), extra: z.string().optional() }),
        handler: noop,
      }),
    );
    expect(error.message).toContain('field "extra" is not a template variable');
    expect(error.message).not.toContain('field "id"');
    expect(error.message).toContain(`make the schema's fields exactly "id"`);
  });

  it("names every problem at once", () => {
    const error = definitionError(() =>
      newServer().resource({
        uriTemplate: "users://{org}/{user}",
        input: { org: z.string(), name: z.string(), team: z.string() },
        handler: noop,
      }),
    );
    expect(error.message).toContain("{user} has no field in the input schema");
    expect(error.message).toContain('field "name" is not a template variable');
    expect(error.message).toContain('field "team" is not a template variable');
    expect(error.message).toContain(`make the schema's fields exactly "org", "user"`);
  });

  it("a query variable left out of the schema is still a mismatch", () => {
    const error = definitionError(() =>
      newServer().resource({ uriTemplate: "search://{index}{?q}", input: { index: z.string() }, handler: noop }),
    );
    expect(error.message).toContain("{q} has no field in the input schema");
  });

  it("a schema that is not an object says so", () => {
    const error = definitionError(() =>
      newServer().resource({ uriTemplate: "notes://{id}", input: z.string(), handler: noop }),
    );
    expect(error.message).toContain("the input schema must be an object of the variables");
    expect(error.message).toContain("{id} has no field in the input schema");
  });

  it("a rejected template is not registered: the server stays empty and the template can be added again", async () => {
    const server = newServer();
    const error = definitionError(() =>
      server.resource({ uriTemplate: "notes://{id}", input: { nope: z.string() }, handler: noop }),
    );
    expect(error.message).toContain("input does not match its variables");
    expect(server.capabilities()).toEqual({ logging: {} });
    server.resource({ uriTemplate: "notes://{id}", input: { id: z.string() }, handler: (vars) => `note ${vars.id}` });
    const client = await createTestClient(server, { protocolVersion: "2025-11-25" });
    expect((await client.listResourceTemplates()).map((template) => template.uriTemplate)).toEqual(["notes://{id}"]);
  });
});

describe("servers share compiles of the same schema object", () => {
  it("two servers registering tools with the same shape object list the identical JSON Schema", async () => {
    const shape = { text: z.string().describe("What to echo") };
    const echo = ({ text }: { text: string }) => text;
    const a = newServer("a");
    const first = a.tool({ name: "echo", description: "Echo", input: shape, handler: echo });
    const b = newServer("b");
    const second = b.tool({ name: "say", description: "Say", input: shape, handler: echo });
    // One compile: both list the very object the schema cache holds.
    const cached = compileSchema(shape, "input", "x").jsonSchema;
    expect(first.describe().inputSchema).toBe(cached);
    expect(second.describe().inputSchema).toBe(cached);

    // Both still list and validate with the shared compile.
    for (const [server, name] of [
      [a, "echo"],
      [b, "say"],
    ] as const) {
      const client = await createTestClient(server, { protocolVersion: "2025-11-25" });
      const [tool] = await client.listTools();
      expect(tool?.inputSchema).toMatchObject({
        type: "object",
        properties: { text: { description: "What to echo" } },
      });
      expect((await client.callTool(name, { text: "hi" })).content).toEqual([{ type: "text", text: "hi" }]);
      expect((await client.callTool(name, { text: 1 })).isError).toBe(true);
    }
  });

  it("a tool output schema reused as another tool's input compiles once per io", () => {
    const schema = z.object({ n: z.number().default(0) });
    const server = newServer();
    const make = server.tool({ name: "make", description: "d", output: schema, handler: () => ({ n: 1 }) });
    const take = server.tool({ name: "take", description: "d", input: schema, handler: () => "ok" });
    const take2 = server.tool({ name: "take2", description: "d", input: schema, handler: () => "ok" });
    expect(take2.describe().inputSchema).toBe(take.describe().inputSchema);
    expect(make.describe().outputSchema).toBe(compileSchema(schema, "output", "x").jsonSchema);
    // A default makes the field optional on input and present on output: two compiles, one per io.
    expect(make.describe().outputSchema).not.toBe(take.describe().inputSchema);
    expect((make.describe().outputSchema as { required?: string[] }).required).toEqual(["n"]);
    expect((take.describe().inputSchema as { required?: string[] }).required).toBeUndefined();
  });
});
