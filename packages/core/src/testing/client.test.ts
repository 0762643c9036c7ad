import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createServer, McpError } from "../index.js";
import { createTestClient } from "./client.js";

function demo() {
  const server = createServer({ name: "demo", version: "1.0.0" });
  server.tool({
    name: "add",
    description: "Add two numbers",
    input: { a: z.number(), b: z.number() },
    handler: ({ a, b }) => a + b,
  });
  return server;
}

describe("createTestClient", () => {
  for (const protocolVersion of ["2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"] as const) {
    it(`speaks ${protocolVersion}`, async () => {
      const client = await createTestClient(demo(), { protocolVersion });
      expect(client.era).toBe(protocolVersion === "2026-07-28" ? "stateless" : "handshake");
      expect((await client.listTools()).map((tool) => tool.name)).toEqual(["add"]);
      const result = await client.callTool("add", { a: 2, b: 3 });
      expect(result.content).toEqual([{ type: "text", text: "5" }]);
      await expect(client.callTool("nope")).rejects.toMatchObject({ code: -32602 });
      await expect(client.callTool("nope")).rejects.toBeInstanceOf(McpError);
      expect(client.messages[0]?.direction).toBe("in");
    });
  }
});

// The newcomer's issue tracker: a resource and a prompt that throw, and lists longer than a page.
function tracker(pageSize?: number) {
  const server = createServer({ name: "issues", version: "1", ...(pageSize ? { pageSize } : {}) });
  const thrown: Record<string, Error> = {};
  server.resource({
    uriTemplate: "issues://{id}",
    list: () => ["1", "2", "3"].map((id) => ({ uri: `issues://${id}`, name: `issue ${id}` })),
    handler: ({ id }) => {
      if (id === "broken") {
        thrown.resource = new TypeError("Cannot read properties of undefined (reading 'title')");
        throw thrown.resource;
      }
      return `issue ${id}`;
    },
  });
  for (const name of ["triage", "summary", "duplicate"]) {
    server.prompt({
      name,
      handler: () => {
        thrown.prompt = new RangeError(`the ${name} prompt has no template yet`);
        throw thrown.prompt;
      },
    });
  }
  for (const name of ["create", "close", "list"])
    server.tool({ name, description: `${name} issues`, handler: () => name });
  for (const uriTemplate of ["a://{x}", "b://{x}"]) server.resource({ uriTemplate, handler: () => "x" });
  return { server, thrown };
}

describe.each(["2025-11-25", "2026-07-28"] as const)("the test client in %s", (protocolVersion) => {
  it("a resource or prompt that throws rejects with the server-side error as the McpError's cause", async () => {
    const { server, thrown } = tracker();
    const client = await createTestClient(server, { protocolVersion });
    const read = await client.readResource("issues://broken").catch((error: unknown) => error);
    expect(read).toBeInstanceOf(McpError);
    expect(read).toMatchObject({ code: -32603, message: "Internal error" });
    // The very error the handler threw, stack and all: vitest prints it as "Caused by".
    expect((read as McpError).cause).toBe(thrown.resource);
    expect(((read as McpError).cause as Error).stack).toContain("client.test.ts");
    const prompt = await client.getPrompt("triage").catch((error: unknown) => error);
    expect(prompt).toMatchObject({ code: -32603, message: "Internal error", cause: thrown.prompt });
  });

  it("the wire still says only Internal error", async () => {
    const { server } = tracker();
    const client = await createTestClient(server, { protocolVersion });
    await client.readResource("issues://broken").catch(() => {});
    await client.getPrompt("triage").catch(() => {});
    const replies = client.messages.filter((record) => record.direction === "out" && record.line.includes('"error"'));
    expect(replies.map((record) => record.line)).toEqual([
      `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"Internal error"}}`,
      `{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"Internal error"}}`,
    ]);
  });

  it("an error the server meant to send has no cause", async () => {
    const client = await createTestClient(tracker().server, { protocolVersion });
    const error = await client.getPrompt("nope").catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({ code: -32602 });
    expect((error as Error).cause).toBeUndefined();
  });

  it("list helpers return every page; the …Page helpers return one", async () => {
    const client = await createTestClient(tracker(2).server, { protocolVersion });
    expect((await client.listResources()).map((resource) => resource.uri)).toEqual([
      "issues://1",
      "issues://2",
      "issues://3",
    ]);
    expect((await client.listTools()).map((tool) => tool.name)).toEqual(["create", "close", "list"]);
    expect((await client.listPrompts()).map((prompt) => prompt.name)).toEqual(["triage", "summary", "duplicate"]);
    expect((await client.listResourceTemplates()).map((template) => template.uriTemplate)).toEqual([
      "issues://{id}",
      "a://{x}",
      "b://{x}",
    ]);
    const first = await client.listResourcesPage();
    expect(first.resources.map((resource) => resource.uri)).toEqual(["issues://1", "issues://2"]);
    expect(typeof first.nextCursor).toBe("string");
    const last = await client.listResourcesPage(first.nextCursor);
    expect(last).toEqual({ resources: [expect.objectContaining({ uri: "issues://3" })] });
    expect((await client.listToolsPage()).tools).toHaveLength(2);
    expect((await client.listPromptsPage()).prompts).toHaveLength(2);
    expect((await client.listResourceTemplatesPage()).resourceTemplates).toHaveLength(2);
  });

  it("a server whose cursor never moves on fails the list helper instead of looping", async () => {
    const server = demo().use((operation, next) =>
      operation.kind === "list" ? { tools: [], nextCursor: "again" } : next(),
    );
    const client = await createTestClient(server, { protocolVersion });
    await expect(client.listTools()).rejects.toThrow('tools/list returned the cursor "again" twice');
  });
});

describe.each(["2025-11-25", "2026-07-28"] as const)("what the test client shows (%s)", (protocolVersion) => {
  it("a guard that throws: the call is refused as unknown on the wire, the guard's crash is the cause", async () => {
    const server = createServer({ name: "issues", version: "1", logger: () => {} });
    const crash = new TypeError("Cannot read properties of undefined (reading 'scopes')");
    server.tool({
      name: "close",
      description: "Close an issue",
      guard: () => {
        throw crash;
      },
      handler: () => "closed",
    });
    const client = await createTestClient(server, { protocolVersion });
    const error = await client.callTool("close").catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({ code: -32602, message: "Unknown tool: close", cause: crash });
    const reply = client.messages.at(-1)?.line ?? "";
    expect(reply).toContain('"error":{"code":-32602,"message":"Unknown tool: close"}');
    expect(reply).not.toContain("scopes");
  });

  it("a list of more than 10,000 pages is walked to its end", async () => {
    const server = demo().use((operation, next) => {
      if (operation.kind !== "list") return next();
      const at = Number(operation.params.cursor ?? 0);
      const tool = { name: `t${at}`, inputSchema: { type: "object" } };
      return at < 10_500 ? { tools: [tool], nextCursor: String(at + 1) } : { tools: [tool] };
    });
    const client = await createTestClient(server, { protocolVersion });
    expect(await client.listTools()).toHaveLength(10_501);
  });

  it("a server whose fresh cursors bring nothing new fails the list helper after a hundred pages", async () => {
    let pages = 0;
    const server = demo().use((operation, next) => {
      if (operation.kind !== "list") return next();
      pages++;
      return { tools: [{ name: "add", inputSchema: { type: "object" } }], nextCursor: `c${pages}` };
    });
    const client = await createTestClient(server, { protocolVersion });
    await expect(client.listTools()).rejects.toThrow(
      "tools/list gave 100 pages in a row with nothing new and a nextCursor: the server's cursors loop",
    );
    expect(pages).toBe(101);
  });
});
