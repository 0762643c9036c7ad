import { describe, expect, it } from "vitest";
import { createServer, type McpError } from "../index.js";
import { createTestClient } from "./client.js";
import { sent, starts } from "./fixtures.test-util.js";

// The in-memory wire: every line recorded, an error reply turned into an McpError (with the server-side error behind
// a generic -32603 as its cause), and a call's signal cancelling it on the server. The same outcome in both eras.

// The newcomer's issue tracker: a resource and a prompt that throw, and an import that runs until cancelled.
function tracker() {
  const server = createServer({ name: "issues", version: "1", logger: () => {} });
  const thrown: Record<string, Error> = {};
  const running = starts();
  server.resource({
    uriTemplate: "issues://{id}",
    handler: ({ id }) => {
      if (id === "broken") {
        thrown.resource = new TypeError("Cannot read properties of undefined (reading 'title')");
        throw thrown.resource;
      }
      return `issue ${id}`;
    },
  });
  server.prompt({
    name: "triage",
    handler: () => {
      thrown.prompt = new RangeError("the triage prompt has no template yet");
      throw thrown.prompt;
    },
  });
  server.tool({
    name: "import",
    description: "Import issues, reporting progress, until cancelled",
    handler: async (_args, ctx) => {
      ctx.progress(1, 100, "imported 1 issue");
      await running.begin(ctx);
      return "stopped";
    },
  });
  server.tool({ name: "quick", description: "Answers at once", handler: () => "quick" });
  return { server, thrown, started: running.started, nextStart: running.next };
}

describe.each(["2025-11-25", "2026-07-28"] as const)("the test client in %s", (protocolVersion) => {
  it("a resource or prompt that throws rejects with the server-side error as the McpError's cause", async () => {
    const { server, thrown } = tracker();
    const client = await createTestClient(server, { protocolVersion });
    const read = await client.readResource("issues://broken").catch((error: unknown) => error);
    expect(read).toMatchObject({ code: -32603, message: "Internal error" });
    // The very error the handler threw, stack and all: vitest prints it as "Caused by".
    expect((read as McpError).cause).toBe(thrown.resource);
    expect(((read as McpError).cause as Error).stack).toContain("wire.test.ts");
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
    expect(error).toMatchObject({ code: -32602, message: "Unknown prompt: nope" });
    expect((error as Error).cause).toBeUndefined();
  });

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

  it("aborting a call blocked after progress cancels it: ctx.signal fires, the call rejects with the signal's reason", async () => {
    const { server, started, nextStart } = tracker();
    const client = await createTestClient(server, { protocolVersion });
    const controller = new AbortController();
    const call = client.request(
      "tools/call",
      { name: "import", _meta: { progressToken: "p" } },
      { signal: controller.signal },
    );
    await nextStart();
    controller.abort();
    await expect(call).rejects.toBe(controller.signal.reason);
    expect(await started[0]?.aborted).toBe("This operation was aborted");
    const [cancelled] = sent(client, "notifications/cancelled");
    const callId = (sent(client, "tools/call")[0]!.message as { id: number }).id;
    expect(cancelled?.message).toMatchObject({
      method: "notifications/cancelled",
      params: { requestId: callId, reason: "This operation was aborted" },
    });
    // The server answers a cancelled request with nothing.
    await client.callTool("quick");
    const replies = client.messages.filter((record) => (record.message as { id?: unknown }).id === callId);
    expect(replies.map((record) => record.direction)).toEqual(["in"]);
    expect(client.notifications.some((n) => n.method === "notifications/progress")).toBe(true);
  });

  it("a signal aborted before the call sends nothing", async () => {
    const client = await createTestClient(tracker().server, { protocolVersion });
    const before = client.messages.length;
    const signal = AbortSignal.abort();
    await expect(client.callTool("quick", undefined, { signal })).rejects.toBe(signal.reason);
    expect(client.messages.length).toBe(before);
  });

  it("of many calls in flight, aborting one stops only that one; aborting after the reply does nothing", async () => {
    const { server, started, nextStart } = tracker();
    const client = await createTestClient(server, { protocolVersion });
    const controllers = [0, 1, 2].map(() => new AbortController());
    const calls: Promise<unknown>[] = [];
    for (const controller of controllers) {
      calls.push(client.callTool("import", undefined, { signal: controller.signal }));
      await nextStart();
    }
    controllers[1]?.abort();
    await expect(calls[1]).rejects.toBe(controllers[1]?.signal.reason);
    expect(started.map(({ ctx }) => ctx.signal.aborted)).toEqual([false, true, false]);
    const done = new AbortController();
    expect((await client.callTool("quick", undefined, { signal: done.signal })).content).toEqual([
      { type: "text", text: "quick" },
    ]);
    const before = client.messages.length;
    done.abort();
    expect(client.messages.length).toBe(before);
    client.close();
    await Promise.allSettled(calls);
  });
});
