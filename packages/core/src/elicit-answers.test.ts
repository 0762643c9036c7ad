import { describe, expect, it } from "vitest";
import { z } from "zod";
import { rpcError } from "./expect-errors.test-util.js";
import { ErrorCode } from "./json-rpc.js";
import { createServer } from "./server.js";
import { createTestClient } from "./testing.js";

// A client's answer that does not fit the form it was asked: the request's bad params (-32602, naming the field) for
// a prompt or a resource, the tool's own failure (an isError result) for a tool. In both eras.

const FORM = { count: z.number().int(), unit: z.enum(["kg", "lb"]) };

function server() {
  const s = createServer({ name: "answers", version: "1" });
  s.prompt({
    name: "weigh",
    description: "Asks how much",
    handler: async (_args, ctx) => {
      const answer = await ctx.elicit({ message: "How much?", schema: FORM });
      return answer.action === "accept" ? `Weigh ${answer.content.count} ${answer.content.unit}` : "Nothing";
    },
  });
  s.resource({
    uri: "scale://reading",
    handler: async (ctx) => {
      const answer = await ctx.elicit({ message: "How much?", schema: FORM });
      return answer.action === "accept" ? `${answer.content.count} ${answer.content.unit}` : "none";
    },
  });
  s.resource({
    uriTemplate: "scale://items/{id}",
    handler: async ({ id }, ctx) => {
      const answer = await ctx.elicit({ message: "How much?", schema: FORM });
      return answer.action === "accept" ? `${id}: ${answer.content.count}` : "none";
    },
  });
  s.tool({
    name: "weigh",
    description: "Asks how much",
    handler: async (_args, ctx) => {
      const answer = await ctx.elicit({ message: "How much?", schema: FORM });
      return answer.action === "accept" ? `${answer.content.count} ${answer.content.unit}` : "none";
    },
  });
  return s;
}

const UNFIT = { count: "many", unit: "kg" };

describe.each(["2025-11-25", "2025-06-18", "2026-07-28"] as const)(
  "an answer that does not fit, in %s",
  (protocolVersion) => {
    const client = () =>
      createTestClient(server(), { protocolVersion, elicit: async () => ({ action: "accept", content: UNFIT }) });

    it("prompts/get is -32602 naming the field", async () => {
      const error = await rpcError((await client()).getPrompt("weigh"));
      expect(error.code).toBe(ErrorCode.InvalidParams);
      expect(error.message).toContain('The client\'s answer to "How much?" does not fit the requested schema');
      expect(error.message).toContain("- count:");
      expect(error.data).toMatchObject({ issues: [{ path: "count" }] });
    });

    it("resources/read is -32602 naming the field, for a resource and a template", async () => {
      const connected = await client();
      for (const uri of ["scale://reading", "scale://items/7"]) {
        const error = await rpcError(connected.readResource(uri));
        expect(error.code).toBe(ErrorCode.InvalidParams);
        expect(error.message).toContain("- count:");
      }
    });

    it("tools/call is the tool's isError result naming the field", async () => {
      const result = await (await client()).callTool("weigh");
      expect(result.isError).toBe(true);
      expect(result.content[0]).toMatchObject({ type: "text", text: expect.stringContaining("- count:") });
    });

    it("an answer that fits is served", async () => {
      const fits = await createTestClient(server(), {
        protocolVersion,
        elicit: async () => ({ action: "accept", content: { count: 3, unit: "lb" } }),
      });
      expect((await fits.getPrompt("weigh")).messages[0]?.content).toEqual({ type: "text", text: "Weigh 3 lb" });
      expect((await fits.readResource("scale://reading")).contents[0]).toMatchObject({ text: "3 lb" });
    });
  },
);
