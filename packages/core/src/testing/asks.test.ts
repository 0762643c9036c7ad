import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { RequestContext } from "../context/context.js";
import { createServer, McpError } from "../index.js";
import { createTestClient } from "./client.js";

// The test client's elicit/sample handlers and AbortSignal-cancelled calls: the same test gives the same outcome in
// both eras.

function deferred<T = void>() {
  let resolve: (value: T) => void = () => {};
  const promise = new Promise<T>((settle) => {
    resolve = settle;
  });
  return { promise, resolve };
}

// Resolves with the abort reason once `ctx.signal` fires.
function aborted(ctx: RequestContext): Promise<unknown> {
  return new Promise((resolve) => ctx.signal.addEventListener("abort", () => resolve(ctx.signal.reason)));
}

function tracker() {
  const server = createServer({ name: "issues", version: "1" });
  const seen = { signal: undefined as Promise<unknown> | undefined, outcome: undefined as unknown };
  const blocked = deferred();
  server.tool({
    name: "create",
    description: "Create an issue, asking for its title",
    handler: async (_args, ctx) => {
      seen.signal = aborted(ctx);
      const answer = await ctx.elicit({ message: "Title?", schema: { title: z.string() } });
      seen.outcome = answer;
      return answer.action === "accept" ? `created "${answer.content.title}"` : `not created: ${answer.action}`;
    },
  });
  server.tool({
    name: "summarize",
    description: "Summarize the issues with the client's model",
    handler: async (_args, ctx) => {
      const answer = await ctx.sample({ messages: [], maxTokens: 10 });
      return answer.model;
    },
  });
  server.tool({
    name: "import",
    description: "Import issues, reporting progress, until cancelled",
    handler: async (_args, ctx) => {
      seen.signal = aborted(ctx);
      ctx.progress(1, 100, "imported 1 issue");
      blocked.resolve();
      await seen.signal;
      return "stopped";
    },
  });
  server.resource({
    uriTemplate: "slow://{id}",
    handler: async (_vars, ctx) => {
      seen.signal = aborted(ctx);
      blocked.resolve();
      await seen.signal;
      return "late";
    },
  });
  server.prompt({
    name: "slow",
    handler: async (_args, ctx) => {
      seen.signal = aborted(ctx);
      blocked.resolve();
      await seen.signal;
      return "late";
    },
  });
  return { server, seen, blocked: blocked.promise };
}

const calls = (client: { messages: readonly { direction: string; message: unknown }[] }, method: string) =>
  client.messages.filter(
    (record) => record.direction === "in" && (record.message as { method?: string }).method === method,
  );

describe.each(["2025-11-25", "2026-07-28"] as const)("in %s", (protocolVersion) => {
  it("a failing expect inside elicit rejects the call with that very assertion error", async () => {
    const { server } = tracker();
    let failure: unknown;
    const client = await createTestClient(server, {
      protocolVersion,
      elicit: (params) => {
        try {
          expect(params.message).toBe("Issue title?");
        } catch (error) {
          failure = error;
          throw error;
        }
        return { action: "accept", content: { title: "x" } };
      },
    });
    const error = await client.callTool("create").catch((thrown: unknown) => thrown);
    expect(failure).toBeDefined();
    expect(error).toBe(failure);
    // Nothing is left running on the server: the call was cancelled there (handshake) or never retried (2026).
    expect(calls(client, "tools/call")).toHaveLength(1);
  });

  it("a failing expect inside sample rejects the call the same way", async () => {
    const { server } = tracker();
    const failure = new Error("expected 10 tokens");
    const client = await createTestClient(server, {
      protocolVersion,
      sample: () => {
        throw failure;
      },
    });
    await expect(client.callTool("summarize")).rejects.toBe(failure);
  });

  it.runIf(protocolVersion === "2025-11-25")("the failing handler's call is cancelled on the server", async () => {
    const { server, seen } = tracker();
    const client = await createTestClient(server, {
      protocolVersion,
      elicit: () => {
        throw new Error("nope");
      },
    });
    await expect(client.callTool("create")).rejects.toThrow("nope");
    expect(await seen.signal).toBeDefined();
    expect(calls(client, "notifications/cancelled").map((record) => record.message)).toEqual([
      {
        jsonrpc: "2.0",
        method: "notifications/cancelled",
        params: { requestId: 1, reason: "the test client's elicitation/create handler threw" },
      },
    ]);
  });

  for (const action of ["decline", "cancel"] as const) {
    it(`a ${action} reaches the tool as ctx.elicit's outcome and the call gets its result`, async () => {
      const { server, seen } = tracker();
      const client = await createTestClient(server, { protocolVersion, elicit: () => ({ action }) });
      const result = await client.callTool("create");
      expect(result.content).toEqual([{ type: "text", text: `not created: ${action}` }]);
      expect(result.isError).toBeFalsy();
      expect(seen.outcome).toEqual({ action });
    });
  }

  it("an accepted answer is the same in both eras", async () => {
    const { server } = tracker();
    const client = await createTestClient(server, {
      protocolVersion,
      elicit: () => ({ action: "accept", content: { title: "Crash on save" } }),
    });
    expect((await client.callTool("create")).content).toEqual([{ type: "text", text: 'created "Crash on save"' }]);
  });

  it("aborting a call blocked after progress cancels it: ctx.signal fires, the call rejects with an AbortError", async () => {
    const { server, seen, blocked } = tracker();
    const client = await createTestClient(server, { protocolVersion });
    const controller = new AbortController();
    const call = client.request(
      "tools/call",
      { name: "import", _meta: { progressToken: "p" } },
      { signal: controller.signal },
    );
    await blocked;
    controller.abort();
    await expect(call).rejects.toMatchObject({ name: "AbortError" });
    expect(await seen.signal).toBeDefined();
    const [cancelled] = calls(client, "notifications/cancelled");
    const callId = (calls(client, "tools/call")[0]!.message as { id: number }).id;
    expect(cancelled?.message).toMatchObject({
      method: "notifications/cancelled",
      params: { requestId: callId, reason: "This operation was aborted" },
    });
    // The server answers a cancelled request with nothing.
    await client.callTool("create").catch(() => {});
    const replies = client.messages.filter((record) => (record.message as { id?: unknown }).id === callId);
    expect(replies.map((record) => record.direction)).toEqual(["in"]);
    expect(client.notifications.some((n) => n.method === "notifications/progress")).toBe(true);
  });

  it("readResource and getPrompt take a signal too", async () => {
    for (const start of [
      (client: Awaited<ReturnType<typeof createTestClient>>, signal: AbortSignal) =>
        client.readResource("slow://1", { signal }),
      (client: Awaited<ReturnType<typeof createTestClient>>, signal: AbortSignal) =>
        client.getPrompt("slow", undefined, { signal }),
    ]) {
      const { server, seen, blocked } = tracker();
      const client = await createTestClient(server, { protocolVersion });
      const controller = new AbortController();
      const call = start(client, controller.signal);
      await blocked;
      controller.abort("the user closed the panel");
      await expect(call).rejects.toBe("the user closed the panel");
      expect(await seen.signal).toBe("the user closed the panel");
    }
  });

  it("aborting while the test's elicit handler is still answering rejects the call and tells the handler", async () => {
    const { server, seen } = tracker();
    const asked = deferred<AbortSignal>();
    const client = await createTestClient(server, {
      protocolVersion,
      elicit: (_params, { signal }) => {
        asked.resolve(signal);
        return new Promise(() => {});
      },
    });
    const controller = new AbortController();
    const call = client.callTool("create", undefined, { signal: controller.signal });
    const handlerSignal = await asked.promise;
    controller.abort();
    await expect(call).rejects.toMatchObject({ name: "AbortError" });
    expect(handlerSignal.aborted).toBe(true);
    expect(calls(client, "tools/call")).toHaveLength(1);
    // Handshake: the server's handler was waiting on ctx.elicit and is stopped; 2026-07-28: it had already
    // answered input_required, so nothing runs and nothing is sent.
    if (protocolVersion === "2025-11-25") expect(await seen.signal).toBeDefined();
    else expect(calls(client, "notifications/cancelled")).toEqual([]);
  });

  it("a signal aborted before the call sends nothing", async () => {
    const { server } = tracker();
    const client = await createTestClient(server, { protocolVersion });
    const before = client.messages.length;
    await expect(client.callTool("create", undefined, { signal: AbortSignal.abort() })).rejects.toMatchObject({
      name: "AbortError",
    });
    expect(client.messages.length).toBe(before);
  });

  it("an McpError from a handler is a JSON-RPC error answer where the era has one", async () => {
    const { server } = tracker();
    const refusal = new McpError(-1, "User rejected sampling");
    const client = await createTestClient(server, {
      protocolVersion,
      sample: () => {
        throw refusal;
      },
    });
    if (protocolVersion === "2025-11-25") {
      const result = await client.callTool("summarize");
      expect(result).toMatchObject({ isError: true, content: [{ text: expect.stringContaining("User rejected") }] });
    } else {
      await expect(client.callTool("summarize")).rejects.toBe(refusal);
    }
  });
});
