import { describe, expect, it } from "vitest";
import { z } from "zod";
import * as z3 from "zod/v3";
import { createServer, DefinitionError, type ErrorReport, McpError, MetaKey, type Server, text } from "../index.js";
import { createTestClient } from "../testing/client.js";
import { definitionError, rpcError } from "../testing/expect-errors.test-util.js";
import "../schema/zod-v3.js";

const REVISIONS = ["2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"] as const;
const HANDSHAKE = ["2025-03-26", "2025-06-18", "2025-11-25"] as const;

function newServer(): Server {
  return createServer({ name: "router-test", version: "1.0.0" });
}

const noop = () => "ok";

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

  it("duplicate tool", () => {
    const server = newServer();
    server.tool({ name: "echo", description: "d", handler: noop });
    const error = definitionError(() => server.tool({ name: "echo", description: "again", handler: noop }));
    expect(error.message).toContain('"echo"');
    expect(error.message).toMatch(/give each tool its own name/);
  });

  it("duplicate prompt", () => {
    const server = newServer();
    server.prompt({ name: "greet", handler: noop });
    const error = definitionError(() => server.prompt({ name: "greet", handler: noop }));
    expect(error.message).toContain('"greet"');
    expect(error.message).toMatch(/give each prompt its own name/);
  });

  it("duplicate resource", () => {
    const server = newServer();
    server.resource({ uri: "notes://all", handler: noop });
    const error = definitionError(() => server.resource({ uri: "notes://all", handler: noop }));
    expect(error.message).toContain("notes://all");
    expect(error.message).toMatch(/defined twice/);
    // Say what to change, as the tool and prompt messages do.
    expect(error.message).toMatch(/once|its own|different|rename|remove|another/i);
  });

  it("duplicate resource template", () => {
    const server = newServer();
    server.resource({ uriTemplate: "notes://{id}", handler: noop });
    const error = definitionError(() => server.resource({ uriTemplate: "notes://{id}", handler: noop }));
    expect(error.message).toContain("notes://{id}");
    expect(error.message).toMatch(/defined twice/);
    expect(error.message).toMatch(/once|its own|different|rename|remove|another/i);
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
      expect(error.message).toMatch(/use z\.string\(\)/);
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

  it("template without variables", () => {
    const error = definitionError(() => newServer().resource({ uriTemplate: "notes://all", handler: noop }));
    expect(error.message).toMatch(/has no \{variable\}; register it with uri instead/);
  });

  it("malformed template", () => {
    expect(() => newServer().resource({ uriTemplate: "notes://{id", handler: noop })).toThrow(DefinitionError);
  });

  it("a rejected definition is not registered", () => {
    const server = newServer();
    expect(() => server.tool({ name: "t", description: "d", input: z.string(), handler: noop })).toThrow();
    expect(server.capabilities()).toEqual({ logging: {} });
    server.tool({ name: "t", description: "d", handler: noop });
    expect(server.capabilities()).toEqual({ logging: {}, tools: { listChanged: true } });
  });
});

describe("lists and capabilities", () => {
  for (const protocolVersion of REVISIONS) {
    it(`${protocolVersion}: lists keep registration order`, async () => {
      const server = newServer();
      server.tool({ name: "zeta", description: "d", handler: noop });
      server.tool({ name: "alpha", description: "d", handler: noop });
      server.tool({ name: "mid", description: "d", handler: noop });
      server.prompt({ name: "p2", handler: noop });
      server.prompt({ name: "p1", handler: noop });
      server.resource({ uri: "z://b", handler: noop });
      server.resource({ uri: "a://a", handler: noop });
      server.resource({ uriTemplate: "z://{b}", handler: noop });
      server.resource({ uriTemplate: "a://{a}", handler: noop });
      const client = await createTestClient(server, { protocolVersion });
      expect((await client.listTools()).map((tool) => tool.name)).toEqual(["zeta", "alpha", "mid"]);
      expect((await client.listPrompts()).map((prompt) => prompt.name)).toEqual(["p2", "p1"]);
      expect((await client.listResources()).map((resource) => resource.uri)).toEqual(["z://b", "a://a"]);
      expect((await client.listResourceTemplates()).map((template) => template.uriTemplate)).toEqual([
        "z://{b}",
        "a://{a}",
      ]);
    });

    it(`${protocolVersion}: capabilities follow what is registered; the rest is -32601`, async () => {
      const server = newServer();
      server.tool({ name: "t", description: "d", handler: noop });
      const client = await createTestClient(server, { protocolVersion });
      expect(client.serverResult.capabilities).toEqual({ logging: {}, tools: { listChanged: true } });
      expect((await rpcError(client.request("prompts/list"))).code).toBe(-32601);
      expect((await rpcError(client.request("prompts/get", { name: "x" }))).code).toBe(-32601);
      expect((await rpcError(client.request("resources/list"))).code).toBe(-32601);
      expect((await rpcError(client.request("resources/read", { uri: "a://b" }))).code).toBe(-32601);
      expect((await rpcError(client.request("resources/templates/list"))).code).toBe(-32601);
    });
  }

  it("a server with only prompts has no tools methods", async () => {
    const server = newServer();
    server.prompt({ name: "p", handler: noop });
    const client = await createTestClient(server, { protocolVersion: "2025-11-25" });
    expect(client.serverResult.capabilities).toEqual({ logging: {}, prompts: { listChanged: true } });
    expect((await rpcError(client.request("tools/list"))).code).toBe(-32601);
    expect((await rpcError(client.callTool("t"))).code).toBe(-32601);
  });

  it("a template alone gives the resources capability", () => {
    const server = newServer();
    server.resource({ uriTemplate: "n://{id}", handler: noop });
    expect(server.capabilities()).toEqual({ logging: {}, resources: { subscribe: true, listChanged: true } });
  });

  it("an empty server advertises nothing but logging", () => {
    expect(newServer().capabilities()).toEqual({ logging: {} });
  });

  it("a tool registered after listing shows up in the next list", async () => {
    const server = newServer();
    server.tool({ name: "first", description: "d", handler: noop });
    const client = await createTestClient(server, { protocolVersion: "2025-11-25" });
    expect((await client.listTools()).map((tool) => tool.name)).toEqual(["first"]);
    server.tool({ name: "second", description: "d", handler: noop });
    expect((await client.listTools()).map((tool) => tool.name)).toEqual(["first", "second"]);
  });

  it("a tool without input lists an empty object schema and receives {}", async () => {
    let received: unknown;
    const server = newServer();
    server.tool({
      name: "t",
      description: "d",
      handler: (args) => {
        received = args;
        return "ok";
      },
    });
    const client = await createTestClient(server, { protocolVersion: "2025-11-25" });
    expect((await client.listTools())[0]?.inputSchema).toEqual({ type: "object", properties: {} });
    await client.callTool("t");
    expect(received).toEqual({});
  });
});

describe("tool handler returns", () => {
  const reports: { error: unknown; where: ErrorReport }[] = [];
  function server(): Server {
    const built = createServer({
      name: "returns",
      version: "1.0.0",
      onError: (error, where) => reports.push({ error, where }),
    });
    built.tool({ name: "string", description: "d", handler: () => "hello" });
    built.tool({ name: "number", description: "d", handler: () => 42 });
    built.tool({ name: "object", description: "d", handler: () => ({ a: 1, b: "x" }) });
    built.tool({
      name: "blocks",
      description: "d",
      handler: () => [text("one"), { type: "image" as const, data: "AAAA", mimeType: "image/png" }],
    });
    built.tool({ name: "block", description: "d", handler: () => text("single") });
    built.tool({
      name: "whole",
      description: "d",
      handler: () => ({ content: [text("whole")], structuredContent: { w: 1 }, isError: false }),
    });
    built.tool({ name: "nothing", description: "d", handler: () => undefined });
    built.tool({
      name: "throws",
      description: "d",
      handler: () => {
        throw new Error("the disk is full");
      },
    });
    built.tool({
      name: "rejects",
      description: "d",
      handler: async () => {
        throw new TypeError("async failure");
      },
    });
    built.tool({
      name: "mcp",
      description: "d",
      handler: () => {
        throw new McpError(-32042, "needs something", { why: "test" });
      },
    });
    return built;
  }

  it("a string becomes one text block", async () => {
    const client = await createTestClient(server(), { protocolVersion: "2025-11-25" });
    const result = await client.callTool("string");
    expect(result.content).toEqual([{ type: "text", text: "hello" }]);
    expect(result.isError ?? false).toBe(false);
    expect(result).not.toHaveProperty("structuredContent");
  });

  it("a number becomes its text", async () => {
    const client = await createTestClient(server(), { protocolVersion: "2025-11-25" });
    expect((await client.callTool("number")).content).toEqual([{ type: "text", text: "42" }]);
  });

  it("a plain object becomes structuredContent plus its JSON text", async () => {
    const client = await createTestClient(server(), { protocolVersion: "2025-11-25" });
    const result = await client.callTool("object");
    expect(result.structuredContent).toEqual({ a: 1, b: "x" });
    expect(result.content).toEqual([{ type: "text", text: JSON.stringify({ a: 1, b: "x" }) }]);
  });

  it("an array of content blocks is the content", async () => {
    const client = await createTestClient(server(), { protocolVersion: "2025-11-25" });
    const result = await client.callTool("blocks");
    expect(result.content).toEqual([
      { type: "text", text: "one" },
      { type: "image", data: "AAAA", mimeType: "image/png" },
    ]);
    expect(result).not.toHaveProperty("structuredContent");
  });

  it("a single block is wrapped", async () => {
    const client = await createTestClient(server(), { protocolVersion: "2025-11-25" });
    expect((await client.callTool("block")).content).toEqual([{ type: "text", text: "single" }]);
  });

  it("a whole result is kept as it is", async () => {
    const client = await createTestClient(server(), { protocolVersion: "2025-11-25" });
    expect(await client.callTool("whole")).toEqual({
      content: [{ type: "text", text: "whole" }],
      structuredContent: { w: 1 },
      isError: false,
    });
  });

  it("undefined is an empty content list", async () => {
    const client = await createTestClient(server(), { protocolVersion: "2025-11-25" });
    const result = await client.callTool("nothing");
    expect(result.content).toEqual([]);
    expect(result.isError ?? false).toBe(false);
  });

  for (const [name, message] of [
    ["throws", "the disk is full"],
    ["rejects", "async failure"],
  ]) {
    it(`a thrown error (${name}) is an isError result with its message and no stack`, async () => {
      reports.length = 0;
      const client = await createTestClient(server(), { protocolVersion: "2025-11-25" });
      const result = await client.callTool(name as string);
      expect(result).toEqual({ content: [{ type: "text", text: message }], isError: true });
      const line = client.messages.at(-1)?.line ?? "";
      expect(line).not.toMatch(/\bat .*(\.ts|\.js)/);
      expect(line).not.toContain("stack");
      expect(reports).toHaveLength(1);
      expect((reports[0]?.error as Error | undefined)?.message).toBe(message);
      expect(reports[0]?.where).toMatchObject({ method: "tools/call", tool: name });
    });
  }

  it("a thrown McpError is a JSON-RPC error with its code, message and data", async () => {
    reports.length = 0;
    const client = await createTestClient(server(), { protocolVersion: "2025-11-25" });
    const error = await rpcError(client.callTool("mcp"));
    expect(error.code).toBe(-32042);
    expect(error.message).toBe("needs something");
    expect(error.data).toEqual({ why: "test" });
    expect(reports).toHaveLength(0);
  });
});

describe("output schemas", () => {
  function server(): Server {
    const built = newServer();
    built.tool({
      name: "good",
      description: "d",
      output: z.object({ total: z.number() }),
      handler: () => ({ total: 3 }),
    });
    built.tool({
      name: "bad",
      description: "d",
      output: z.object({ total: z.number() }),
      handler: () => ({ total: "three" }),
    });
    built.tool({
      name: "v3_bad",
      description: "d",
      output: z3.object({ total: z3.number() }),
      handler: () => ({}),
    });
    return built;
  }

  for (const protocolVersion of ["2025-06-18", "2025-11-25", "2026-07-28"] as const) {
    it(`${protocolVersion}: matching structuredContent passes`, async () => {
      const client = await createTestClient(server(), { protocolVersion });
      const result = await client.callTool("good");
      expect(result.isError ?? false).toBe(false);
      expect(result.structuredContent).toEqual({ total: 3 });
      expect(result.content).toEqual([{ type: "text", text: '{"total":3}' }]);
    });
  }

  for (const protocolVersion of REVISIONS) {
    it(`${protocolVersion}: mismatching structuredContent is an isError result naming the field`, async () => {
      const client = await createTestClient(server(), { protocolVersion });
      for (const name of ["bad", "v3_bad"]) {
        const result = await client.callTool(name);
        expect(result.isError).toBe(true);
        expect(result).not.toHaveProperty("structuredContent");
        expect(result.content[0]?.type).toBe("text");
        const message = (result.content[0] as { text: string }).text;
        expect(message).toContain("total");
        expect(message).toMatch(/output schema/);
      }
    });
  }
});

describe("per-revision shaping", () => {
  const icons = [{ src: "https://example.com/icon.png", mimeType: "image/png" }];
  function server(): Server {
    const built = newServer();
    built.tool({
      name: "weather",
      title: "Weather",
      description: "Today's weather",
      input: { city: z.string() },
      output: z.object({ temperature: z.number() }),
      annotations: { readOnlyHint: true },
      icons,
      handler: () => ({ temperature: 21 }),
    });
    built.tool({
      name: "series",
      description: "A list",
      output: z.array(z.number()),
      handler: () => [1, 2, 3],
    });
    built.tool({ name: "raw_list", description: "A list without a schema", handler: () => [1, 2, 3] });
    built.tool({
      name: "scalar",
      description: "A scalar as structuredContent",
      handler: () => ({ content: [], structuredContent: 5 }),
    });
    built.prompt({ name: "p", title: "Prompt", description: "d", icons, handler: () => "hi" });
    built.resource({ uri: "n://a", title: "A", icons, handler: () => "a" });
    built.resource({
      uriTemplate: "n://{id}",
      title: "Note",
      icons,
      handler: (vars) => `note ${vars.id}`,
    });
    return built;
  }

  it("2025-03-26: no title, outputSchema, icons or structuredContent", async () => {
    const client = await createTestClient(server(), { protocolVersion: "2025-03-26" });
    const [weather, series] = await client.listTools();
    expect(weather).toEqual({
      name: "weather",
      description: "Today's weather",
      inputSchema: expect.objectContaining({ type: "object" }),
      annotations: { readOnlyHint: true },
    });
    expect(series).not.toHaveProperty("outputSchema");
    const result = await client.callTool("weather", { city: "Oslo" });
    expect(result).not.toHaveProperty("structuredContent");
    expect(result.content).toEqual([{ type: "text", text: '{"temperature":21}' }]);
    for (const item of [
      ...(await client.listPrompts()),
      ...(await client.listResources()),
      ...(await client.listResourceTemplates()),
    ]) {
      expect(item).not.toHaveProperty("title");
      expect(item).not.toHaveProperty("icons");
    }
  });

  it("2025-06-18: title, object outputSchema and structuredContent, but no icons", async () => {
    const client = await createTestClient(server(), { protocolVersion: "2025-06-18" });
    const [weather, series] = await client.listTools();
    expect(weather).toMatchObject({ title: "Weather", outputSchema: { type: "object" } });
    expect(weather).not.toHaveProperty("icons");
    // outputSchema must be an object schema before 2026-07-28.
    expect(series).not.toHaveProperty("outputSchema");
    expect((await client.callTool("weather", { city: "Oslo" })).structuredContent).toEqual({ temperature: 21 });
    for (const item of [
      ...(await client.listPrompts()),
      ...(await client.listResources()),
      ...(await client.listResourceTemplates()),
    ]) {
      expect(item).toHaveProperty("title");
      expect(item).not.toHaveProperty("icons");
    }
  });

  for (const protocolVersion of ["2025-11-25", "2026-07-28"] as const) {
    it(`${protocolVersion}: title, outputSchema and icons`, async () => {
      const client = await createTestClient(server(), { protocolVersion });
      const [weather] = await client.listTools();
      expect(weather).toMatchObject({ title: "Weather", icons, outputSchema: { type: "object" } });
      for (const item of [
        ...(await client.listPrompts()),
        ...(await client.listResources()),
        ...(await client.listResourceTemplates()),
      ]) {
        expect(item).toHaveProperty("title");
        expect(item).toHaveProperty("icons", icons);
      }
    });
  }

  for (const [protocolVersion, title, withIcons] of [
    ["2025-03-26", false, false],
    ["2025-06-18", true, false],
    ["2025-11-25", true, true],
    ["2026-07-28", true, true],
  ] as const) {
    it(`${protocolVersion}: resources a template lists are shaped like the static ones`, async () => {
      const listed = newServer();
      listed.resource({
        uriTemplate: "n://{id}",
        handler: () => "x",
        list: () => [{ uri: "n://1", name: "one", title: "One", icons }],
      });
      const client = await createTestClient(listed, { protocolVersion });
      const [resource] = await client.listResources();
      expect(resource).toMatchObject({ uri: "n://1", name: "one" });
      expect(resource?.title !== undefined).toBe(title);
      expect(resource?.icons !== undefined).toBe(withIcons);
    });
  }

  for (const protocolVersion of ["2025-03-26", "2025-06-18", "2025-11-25"] as const) {
    it(`${protocolVersion}: non-object structuredContent is dropped, its JSON text kept`, async () => {
      const client = await createTestClient(server(), { protocolVersion });
      for (const name of ["series", "raw_list"]) {
        const result = await client.callTool(name);
        expect(result).not.toHaveProperty("structuredContent");
        expect(result.content).toEqual([{ type: "text", text: "[1,2,3]" }]);
      }
      expect(await client.callTool("scalar")).not.toHaveProperty("structuredContent");
    });
  }

  it("2026-07-28: non-object structuredContent and outputSchema are kept", async () => {
    const client = await createTestClient(server(), { protocolVersion: "2026-07-28" });
    const series = (await client.listTools()).find((tool) => tool.name === "series");
    expect(series?.outputSchema).toMatchObject({ type: "array", items: { type: "number" } });
    for (const name of ["series", "raw_list"]) {
      const result = await client.callTool(name);
      expect(result.structuredContent).toEqual([1, 2, 3]);
      expect(result.content).toEqual([{ type: "text", text: "[1,2,3]" }]);
    }
    expect((await client.callTool("scalar")).structuredContent).toBe(5);
  });
});

describe("argument validation and unknown names", () => {
  function server(): Server {
    const built = newServer();
    built.tool({
      name: "pay",
      description: "d",
      input: { amount: z.number().positive(), memo: z.string() },
      handler: ({ amount }) => amount,
    });
    built.prompt({
      name: "greet",
      description: "Greets",
      args: { person: z.string(), mood: z.enum(["happy", "sad"]).optional() },
      handler: ({ person }) => `Hello ${person}`,
    });
    return built;
  }

  for (const protocolVersion of ["2025-03-26", "2025-06-18"] as const) {
    it(`${protocolVersion}: invalid tool arguments are JSON-RPC -32602`, async () => {
      const client = await createTestClient(server(), { protocolVersion });
      const error = await rpcError(client.callTool("pay", { amount: "ten" }));
      expect(error.code).toBe(-32602);
      expect(error.message).toContain("amount");
      expect(error.message).toContain("memo");
    });
  }

  for (const protocolVersion of ["2025-11-25", "2026-07-28"] as const) {
    it(`${protocolVersion}: invalid tool arguments are an isError result the model can read`, async () => {
      const client = await createTestClient(server(), { protocolVersion });
      const result = await client.callTool("pay", { amount: -1 });
      expect(result.isError).toBe(true);
      const message = (result.content[0] as { text: string }).text;
      expect(message).toContain("amount");
      expect(message).toMatch(/memo: required/);
    });
  }

  for (const protocolVersion of REVISIONS) {
    it(`${protocolVersion}: unknown tool, unknown prompt and missing prompt argument are -32602`, async () => {
      const client = await createTestClient(server(), { protocolVersion });
      const unknownTool = await rpcError(client.callTool("nope", {}));
      expect(unknownTool.code).toBe(-32602);
      expect(unknownTool.message).toContain("nope");
      const unknownPrompt = await rpcError(client.getPrompt("nope"));
      expect(unknownPrompt.code).toBe(-32602);
      expect(unknownPrompt.message).toContain("nope");
      const missing = await rpcError(client.getPrompt("greet", { mood: "happy" }));
      expect(missing.code).toBe(-32602);
      expect(missing.message).toContain('"person"');
      const badEnum = await rpcError(client.getPrompt("greet", { person: "Ann", mood: "angry" }));
      expect(badEnum.code).toBe(-32602);
      expect(badEnum.message).toContain("mood");
      expect((await client.getPrompt("greet", { person: "Ann" })).messages).toEqual([
        { role: "user", content: { type: "text", text: "Hello Ann" } },
      ]);
    });
  }

  it("the prompt list shows each argument, required unless optional", async () => {
    const client = await createTestClient(server(), { protocolVersion: "2025-11-25" });
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

describe("resources", () => {
  const seen: { variables: unknown; uri: string }[] = [];
  function server(): Server {
    const built = newServer();
    built.resource({ uri: "docs://text", mimeType: "text/markdown", handler: () => "# Title" });
    built.resource({
      uri: "docs://bytes",
      mimeType: "image/png",
      handler: () => new Uint8Array([0, 1, 2, 253, 254, 255]),
    });
    built.resource({ uri: "docs://object", handler: () => ({ a: 1, list: [true] }) });
    built.resource({ uri: "docs://gone", handler: () => undefined });
    built.resource({
      uriTemplate: "notes://{folder}/{id}",
      handler: (variables, _ctx, uri) => {
        seen.push({ variables: { ...variables }, uri });
        return variables.id === "missing" ? undefined : `note ${variables.id} in ${variables.folder}`;
      },
      list: () => [
        { uri: "notes://work/1", name: "First" },
        { uri: "notes://home/2", name: "Second" },
      ],
    });
    return built;
  }

  it("template variables arrive in the handler, with the uri", async () => {
    seen.length = 0;
    const client = await createTestClient(server(), { protocolVersion: "2025-11-25" });
    const result = await client.readResource("notes://work/42");
    expect(result.contents).toEqual([{ uri: "notes://work/42", text: "note 42 in work" }]);
    expect(seen).toEqual([{ variables: { folder: "work", id: "42" }, uri: "notes://work/42" }]);
  });

  it("template list entries appear in resources/list after the static resources", async () => {
    const client = await createTestClient(server(), { protocolVersion: "2025-11-25" });
    expect((await client.listResources()).map((resource) => resource.uri)).toEqual([
      "docs://text",
      "docs://bytes",
      "docs://object",
      "docs://gone",
      "notes://work/1",
      "notes://home/2",
    ]);
  });

  it("a string is text contents with the resource's mimeType", async () => {
    const client = await createTestClient(server(), { protocolVersion: "2025-11-25" });
    expect(await client.readResource("docs://text")).toEqual({
      contents: [{ uri: "docs://text", mimeType: "text/markdown", text: "# Title" }],
    });
  });

  it("a Uint8Array is a base64 blob", async () => {
    const client = await createTestClient(server(), { protocolVersion: "2025-11-25" });
    expect(await client.readResource("docs://bytes")).toEqual({
      contents: [{ uri: "docs://bytes", mimeType: "image/png", blob: "AAEC/f7/" }],
    });
  });

  it("an object is JSON text with mimeType application/json", async () => {
    const client = await createTestClient(server(), { protocolVersion: "2025-11-25" });
    expect(await client.readResource("docs://object")).toEqual({
      contents: [{ uri: "docs://object", mimeType: "application/json", text: '{"a":1,"list":[true]}' }],
    });
  });

  for (const protocolVersion of HANDSHAKE) {
    it(`${protocolVersion}: not found is -32002 with data {uri}`, async () => {
      const client = await createTestClient(server(), { protocolVersion });
      for (const uri of ["docs://nowhere", "docs://gone", "notes://work/missing", "other://x"]) {
        const error = await rpcError(client.readResource(uri));
        expect(error.code).toBe(-32002);
        expect(error.data).toEqual({ uri });
      }
    });
  }

  it("2026-07-28: not found is -32602 with data {uri}, never empty contents", async () => {
    const client = await createTestClient(server(), { protocolVersion: "2026-07-28" });
    for (const uri of ["docs://nowhere", "docs://gone", "notes://work/missing", "other://x"]) {
      const error = await rpcError(client.readResource(uri));
      expect(error.code).toBe(-32602);
      expect(error.data).toEqual({ uri });
    }
  });
});

describe("prompt handler returns", () => {
  function server(): Server {
    const built = newServer();
    built.prompt({ name: "string", description: "A string prompt", handler: () => "Summarise this" });
    built.prompt({
      name: "messages",
      handler: () => [
        { role: "user" as const, content: "Question?" },
        { role: "assistant" as const, content: text("Answer.") },
      ],
    });
    built.prompt({
      name: "whole",
      description: "default description",
      handler: () => ({
        description: "own description",
        messages: [{ role: "user" as const, content: text("Hi") }],
      }),
    });
    return built;
  }

  it("a string is one user message, with the prompt's description", async () => {
    const client = await createTestClient(server(), { protocolVersion: "2025-11-25" });
    expect(await client.getPrompt("string")).toEqual({
      description: "A string prompt",
      messages: [{ role: "user", content: { type: "text", text: "Summarise this" } }],
    });
  });

  it("messages keep their roles; string content becomes a text block", async () => {
    const client = await createTestClient(server(), { protocolVersion: "2025-11-25" });
    expect(await client.getPrompt("messages")).toEqual({
      messages: [
        { role: "user", content: { type: "text", text: "Question?" } },
        { role: "assistant", content: { type: "text", text: "Answer." } },
      ],
    });
  });

  it("a whole result is kept", async () => {
    const client = await createTestClient(server(), { protocolVersion: "2025-11-25" });
    expect(await client.getPrompt("whole")).toEqual({
      description: "own description",
      messages: [{ role: "user", content: { type: "text", text: "Hi" } }],
    });
  });
});

describe("result envelopes per era", () => {
  function server(): Server {
    const built = createServer({ name: "env", version: "2.0.0" });
    built.tool({ name: "t", description: "d", handler: () => "x" });
    built.prompt({ name: "p", handler: () => "x" });
    built.resource({ uri: "r://default", handler: () => "x" });
    built.resource({ uri: "r://own", cache: { ttlMs: 5_000, cacheScope: "public" }, handler: () => "x" });
    built.resource({
      uriTemplate: "r://t/{id}",
      cache: { ttlMs: 7_000, cacheScope: "private" },
      handler: (vars) => `t ${vars.id}`,
    });
    return built;
  }

  const CACHED: [string, Record<string, unknown>?][] = [
    ["server/discover"],
    ["tools/list"],
    ["prompts/list"],
    ["resources/list"],
    ["resources/templates/list"],
    ["resources/read", { uri: "r://default" }],
  ];
  const UNCACHED: [string, Record<string, unknown>][] = [
    ["tools/call", { name: "t" }],
    ["prompts/get", { name: "p" }],
  ];

  it("2026-07-28: every result has resultType complete and _meta serverInfo", async () => {
    const client = await createTestClient(server(), { protocolVersion: "2026-07-28" });
    for (const [method, params] of [...CACHED, ...UNCACHED]) {
      const result = await client.request(method, params);
      expect(result.resultType, method).toBe("complete");
      expect(result._meta, method).toEqual({ [MetaKey.serverInfo]: { name: "env", version: "2.0.0" } });
    }
  });

  it("2026-07-28: ttlMs and cacheScope exactly on discover, the four lists and resources/read", async () => {
    const client = await createTestClient(server(), { protocolVersion: "2026-07-28" });
    for (const [method, params] of CACHED) {
      const result = await client.request(method, params);
      expect(Number.isInteger(result.ttlMs) && (result.ttlMs as number) >= 0, method).toBe(true);
      expect(["public", "private"], method).toContain(result.cacheScope);
    }
    for (const [method, params] of UNCACHED) {
      const result = await client.request(method, params);
      expect(result, method).not.toHaveProperty("ttlMs");
      expect(result, method).not.toHaveProperty("cacheScope");
    }
  });

  it("2026-07-28: a resource's own cache hint overrides the default", async () => {
    const client = await createTestClient(server(), { protocolVersion: "2026-07-28" });
    const fallback = await client.readResource("r://default");
    const own = await client.readResource("r://own");
    const template = await client.readResource("r://t/1");
    expect(own).toMatchObject({ ttlMs: 5_000, cacheScope: "public" });
    expect(template).toMatchObject({ ttlMs: 7_000, cacheScope: "private" });
    expect(fallback).toMatchObject({ ttlMs: 0, cacheScope: "private" });
    expect(own.contents).toEqual([{ uri: "r://own", text: "x" }]);
  });

  it("2026-07-28: the server's cache option sets the defaults", async () => {
    const configured = createServer({
      name: "c",
      version: "1",
      cache: { list: { ttlMs: 1_234, cacheScope: "private" }, discover: { ttlMs: 99, cacheScope: "public" } },
    });
    configured.tool({ name: "t", description: "d", handler: noop });
    const client = await createTestClient(configured, { protocolVersion: "2026-07-28" });
    expect(client.serverResult).toMatchObject({ ttlMs: 99, cacheScope: "public" });
    expect(await client.request("tools/list")).toMatchObject({ ttlMs: 1_234, cacheScope: "private" });
  });

  for (const protocolVersion of HANDSHAKE) {
    it(`${protocolVersion}: results carry no resultType, ttlMs or cacheScope`, async () => {
      const client = await createTestClient(server(), { protocolVersion });
      const results = [client.serverResult];
      for (const [method, params] of [...CACHED.slice(1), ...UNCACHED, ["resources/read", { uri: "r://own" }]] as [
        string,
        Record<string, unknown>?,
      ][]) {
        results.push(await client.request(method, params));
      }
      for (const result of results) {
        expect(result).not.toHaveProperty("resultType");
        expect(result).not.toHaveProperty("ttlMs");
        expect(result).not.toHaveProperty("cacheScope");
      }
    });
  }
});
