import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createServer, McpError } from "../index.js";
import { createTestClient } from "./client.js";
import { aborted, sent, unanswered } from "./fixtures.test-util.js";

// The test client's elicit/sample handlers answering the server's asks: the same test gives the same outcome in both
// eras (a handshake-era request answered on the wire, a 2026-07-28 input_required round answered and retried).

function tracker() {
  const server = createServer({ name: "issues", version: "1" });
  const seen = { signal: undefined as Promise<unknown> | undefined, outcome: undefined as unknown };
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
    name: "wizard",
    description: "Ask twenty questions, one after another",
    handler: async (_args, ctx) => {
      const answers: string[] = [];
      for (let step = 1; step <= 20; step++) {
        const answer = await ctx.elicit({ message: `Step ${step}?`, schema: { value: z.string() } });
        if (answer.action === "accept") answers.push(answer.content.value);
      }
      return answers.join(",");
    },
  });
  server.tool({
    name: "interview",
    description: "Ask one question after another, forever",
    handler: async (_args, ctx) => {
      for (let step = 1; ; step++) await ctx.elicit({ message: `Question ${step}?`, schema: { value: z.string() } });
    },
  });
  return { server, seen };
}

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
    expect(sent(client, "tools/call")).toHaveLength(1);
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
    expect(sent(client, "notifications/cancelled").map((record) => record.message)).toEqual([
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

  it("aborting while the test's elicit handler is still answering rejects the call and tells the handler", async () => {
    const { server, seen } = tracker();
    const elicit = unanswered();
    const client = await createTestClient(server, { protocolVersion, elicit: elicit.handler });
    const controller = new AbortController();
    const call = client.callTool("create", undefined, { signal: controller.signal });
    const handlerSignal = await elicit.signal;
    controller.abort();
    await expect(call).rejects.toBe(controller.signal.reason);
    expect(handlerSignal.aborted).toBe(true);
    expect(sent(client, "tools/call")).toHaveLength(1);
    // Handshake: the server's handler was waiting on ctx.elicit and is stopped; 2026-07-28: it had already
    // answered input_required, so nothing runs and nothing is sent.
    if (protocolVersion === "2025-11-25") expect(await seen.signal).toBeDefined();
    else expect(sent(client, "notifications/cancelled")).toEqual([]);
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

  it("a handler that returns nothing rejects the call with what to return (no wait for a reply, no retry)", async () => {
    const client = await createTestClient(tracker().server, { protocolVersion, elicit: (() => {}) as never });
    await expect(client.callTool("create")).rejects.toThrow(
      `the test client's elicitation/create handler returned undefined, not a result: return the object the client answers ({ action: "accept", content: { … } }, or { action: "decline" })`,
    );
    expect(sent(client, "tools/call")).toHaveLength(1);
  });

  it("a call may ask many questions one after another, as in the other era", async () => {
    let asked = 0;
    const client = await createTestClient(tracker().server, {
      protocolVersion,
      elicit: () => ({ action: "accept", content: { value: String(++asked) } }),
    });
    const result = await client.callTool("wizard");
    expect(result.content).toEqual([{ type: "text", text: Array.from({ length: 20 }, (_, i) => i + 1).join(",") }]);
  });
});

describe("a 2026-07-28 call", () => {
  it("still asking for input after a hundred rounds rejects, the server taken to loop", async () => {
    const client = await createTestClient(tracker().server, {
      elicit: () => ({ action: "accept", content: { value: "yes" } }),
    });
    await expect(client.callTool("interview")).rejects.toThrow(
      "tools/call still asked for input after 100 rounds: the server asks again whatever it is answered",
    );
    expect(sent(client, "tools/call")).toHaveLength(101);
  });
});
