import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createServer } from "../index.js";
import { createTestClient } from "../testing/client.js";

// What the server asks the client, field by field, as 2026-07-28 inputRequests (README "2026-07-28 coverage"):
// CreateMessageRequestParams and CreateMessageResult, ListRootsRequest and Root, ElicitRequest's form and its result.

const samplingParams = {
  messages: [
    { role: "user" as const, content: { type: "text", text: "Summarise" } },
    { role: "assistant" as const, content: [{ type: "text", text: "Which part?" }] },
  ],
  maxTokens: 50,
  modelPreferences: {
    hints: [{ name: "claude" }],
    costPriority: 0.2,
    speedPriority: 0.3,
    intelligencePriority: 0.9,
  },
  systemPrompt: "Be brief",
  includeContext: "thisServer" as const,
  temperature: 0.4,
  stopSequences: ["END"],
  metadata: { tenant: "a" },
  tools: [{ name: "lookup", description: "Looks up", inputSchema: { type: "object" } }],
  toolChoice: { mode: "auto" },
};

function server() {
  const s = createServer({ name: "asks", version: "1" });
  s.tool({
    name: "sample",
    description: "Samples with every field",
    handler: async (_args, ctx) => {
      const answer = await ctx.sample(samplingParams);
      return { role: answer.role, content: answer.content, model: answer.model, stopReason: answer.stopReason };
    },
  });
  s.tool({
    name: "roots",
    description: "Lists the roots",
    handler: async (_args, ctx) => ({ roots: await ctx.roots() }),
  });
  s.tool({
    name: "form",
    description: "Elicits a form of every primitive",
    handler: async (_args, ctx) => {
      const answer = await ctx.elicit({
        message: "Details",
        schema: {
          email: z.email().min(3).max(50).describe("Your email"),
          when: z.iso.date().optional(),
          count: z.number().min(1).max(9).default(2),
          ok: z.boolean().default(true),
          size: z.enum(["s", "m"]),
        },
      });
      return answer.action;
    },
  });
  return s;
}

describe("2026-07-28 inputRequests, field by field", () => {
  it("sampling/createMessage carries every CreateMessageRequestParams field; the result's reach the handler", async () => {
    const s = server();
    const asked = await createTestClient(s, { followInputRequired: false, capabilities: { sampling: { tools: {} } } });
    const first = await asked.request("tools/call", { name: "sample" });
    expect(first.resultType).toBe("input_required");
    expect(Object.values(first.inputRequests as object)).toEqual([
      { method: "sampling/createMessage", params: samplingParams },
    ]);
    const client = await createTestClient(s, {
      capabilities: { sampling: { tools: {} } },
      sample: async () => ({
        role: "assistant",
        content: { type: "tool_use", id: "u1", name: "lookup", input: { q: "x" } },
        model: "m-1",
        stopReason: "toolUse",
      }),
    });
    expect((await client.callTool("sample")).structuredContent).toEqual({
      role: "assistant",
      content: { type: "tool_use", id: "u1", name: "lookup", input: { q: "x" } },
      model: "m-1",
      stopReason: "toolUse",
    });
  });

  it("roots/list is asked with its method alone; each Root's uri and name reach the handler", async () => {
    const asked = await createTestClient(server(), { followInputRequired: false, capabilities: { roots: {} } });
    const first = await asked.request("tools/call", { name: "roots" });
    expect(Object.values(first.inputRequests as object)).toEqual([{ method: "roots/list", params: {} }]);
    const client = await createTestClient(server(), { roots: [{ uri: "file:///a", name: "a" }, { uri: "file:///b" }] });
    expect((await client.callTool("roots")).structuredContent).toEqual({
      roots: [{ uri: "file:///a", name: "a" }, { uri: "file:///b" }],
    });
  });

  it("elicitation/create (form): mode, message, requestedSchema of primitives; accept, decline and cancel", async () => {
    const asked = await createTestClient(server(), { followInputRequired: false, capabilities: { elicitation: {} } });
    const first = await asked.request("tools/call", { name: "form" });
    const [request] = Object.values(first.inputRequests as object);
    expect(request).toMatchObject({
      method: "elicitation/create",
      params: {
        mode: "form",
        message: "Details",
        requestedSchema: {
          type: "object",
          properties: {
            email: { type: "string", format: "email", minLength: 3, maxLength: 50, description: "Your email" },
            when: { type: "string", format: "date" },
            count: { type: "number", minimum: 1, maximum: 9, default: 2 },
            ok: { type: "boolean", default: true },
            size: { type: "string", enum: ["s", "m"] },
          },
          required: ["email", "size"],
        },
      },
    });
    for (const action of ["accept", "decline", "cancel"] as const) {
      const client = await createTestClient(server(), {
        elicit: async () => (action === "accept" ? { action, content: { email: "a@b.co", size: "s" } } : { action }),
      });
      expect((await client.callTool("form")).content).toEqual([{ type: "text", text: action }]);
    }
  });
});
