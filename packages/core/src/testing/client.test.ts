import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { RequestContext } from "../context/context.js";
import { createServer } from "../index.js";
import { createTestClient } from "./client.js";
import { sent, starts, unanswered } from "./fixtures.test-util.js";

// The test client's own methods: the initialization or discovery of each revision, the list helpers, the typed calls'
// signals, and close().

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
      await expect(client.callTool("nope")).rejects.toMatchObject({ code: -32602, message: "Unknown tool: nope" });
      expect(client.messages[0]?.direction).toBe("in");
    });
  }
});

// The newcomer's issue tracker: lists longer than a page.
function tracker(pageSize?: number) {
  const server = createServer({ name: "issues", version: "1", ...(pageSize ? { pageSize } : {}) });
  server.resource({
    uriTemplate: "issues://{id}",
    list: () => ["1", "2", "3"].map((id) => ({ uri: `issues://${id}`, name: `issue ${id}` })),
    handler: ({ id }) => `issue ${id}`,
  });
  for (const name of ["triage", "summary", "duplicate"]) server.prompt({ name, handler: () => name });
  for (const name of ["create", "close", "list"])
    server.tool({ name, description: `${name} issues`, handler: () => name });
  for (const uriTemplate of ["a://{x}", "b://{x}"]) server.resource({ uriTemplate, handler: () => "x" });
  return server;
}

describe.each(["2025-11-25", "2026-07-28"] as const)("the test client in %s", (protocolVersion) => {
  it("list helpers return every page; the …Page helpers return one", async () => {
    const client = await createTestClient(tracker(2), { protocolVersion });
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
    // The first page brought something new; the hundred after it did not.
    expect(sent(client, "tools/list")).toHaveLength(101);
  });
});

// Everything here waits until cancelled (a tool, a resource, a prompt, a completer), or never answers.
function waiting() {
  const server = createServer({ name: "issues", version: "1", logger: () => {} });
  const running = starts();
  const stopped = <T>(ctx: RequestContext, value: T) => running.begin(ctx).then(() => value);
  server.tool({ name: "wait", description: "Wait until cancelled", handler: (_args, ctx) => stopped(ctx, "stopped") });
  server.resource({ uriTemplate: "slow://{id}", handler: (_vars, ctx) => stopped(ctx, "late") });
  server.prompt({ name: "slow", handler: (_args, ctx) => stopped(ctx, "late") });
  server.prompt({
    name: "triage",
    args: { label: z.string() },
    complete: { label: (_value, { ctx }) => stopped(ctx, ["aborted"]) },
    handler: ({ label }) => label,
  });
  server.tool({ name: "stuck", description: "Never answers", handler: () => new Promise(() => {}) });
  server.tool({ name: "quick", description: "Answers at once", handler: () => "quick" });
  server.tool({
    name: "create",
    description: "Create an issue, asking for its title",
    handler: async (_args, ctx) => {
      const answer = await ctx.elicit({ message: "Title?", schema: { title: z.string() } });
      return answer.action === "accept" ? `created "${answer.content.title}"` : answer.action;
    },
  });
  return { server, started: running.started, nextStart: running.next };
}

describe.each(["2025-11-25", "2026-07-28"] as const)("signals and close() in %s", (protocolVersion) => {
  it("readResource and getPrompt take a signal too", async () => {
    type Client = Awaited<ReturnType<typeof createTestClient>>;
    for (const start of [
      (client: Client, signal: AbortSignal) => client.readResource("slow://1", { signal }),
      (client: Client, signal: AbortSignal) => client.getPrompt("slow", undefined, { signal }),
    ]) {
      const { server, started, nextStart } = waiting();
      const client = await createTestClient(server, { protocolVersion });
      const controller = new AbortController();
      const call = start(client, controller.signal);
      await nextStart();
      controller.abort("the user closed the panel");
      await expect(call).rejects.toBe("the user closed the panel");
      expect(await started[0]?.aborted).toBe("the user closed the panel");
    }
  });

  it("complete takes a signal too", async () => {
    const client = await createTestClient(waiting().server, { protocolVersion });
    const controller = new AbortController();
    const ref = { type: "ref/prompt", name: "triage" } as const;
    const completion = client.complete(ref, { name: "label", value: "" }, undefined, { signal: controller.signal });
    controller.abort("typed on");
    await expect(completion).rejects.toBe("typed on");
  });

  it("close() rejects every call still waiting and every later one, and stops what runs on the server", async () => {
    const { server, started, nextStart } = waiting();
    const elicit = unanswered();
    const client = await createTestClient(server, { protocolVersion, elicit: elicit.handler });
    const stuck = client.callTool("stuck");
    const waits = client.callTool("wait");
    await nextStart();
    const asking = client.callTool("create");
    const handlerSignal = await elicit.signal;
    client.close();
    for (const call of [stuck, waits, asking]) await expect(call).rejects.toThrow("the test client was closed");
    expect(await started[0]?.aborted).toBeDefined();
    expect(handlerSignal.aborted).toBe(true);
    await expect(client.callTool("quick")).rejects.toThrow("the test client was closed");
  });
});
