import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createServer } from "../server/server.js";
import { createTestClient } from "../testing/client.js";
import { rpcError } from "../testing/expect-errors.test-util.js";
import { ErrorCode } from "../wire/json-rpc.js";

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

// The same form written as raw JSON Schema: its answer is checked as a zod form's is.
const RAW_FORM = {
  type: "object",
  properties: {
    count: { type: "integer", minimum: 0, maximum: 100 },
    unit: { type: "string", oneOf: [{ const: "kg", title: "Kilograms" }, { const: "lb" }] },
    note: { type: "string", maxLength: 5 },
    tags: { type: "array", maxItems: 2, items: { type: "string", enum: ["a", "b", "c"] } },
    sure: { type: "boolean" },
  },
  required: ["count", "unit"],
};

function rawServer(seen: unknown[]) {
  const s = createServer({ name: "raw-answers", version: "1" });
  s.prompt({
    name: "weigh",
    description: "Asks how much, in raw JSON Schema",
    handler: async (_args, ctx) => {
      const answer = await ctx.elicit({ message: "How much?", requestedSchema: RAW_FORM });
      seen.push(answer.content);
      return answer.action;
    },
  });
  s.tool({
    name: "weigh",
    description: "Asks how much, in raw JSON Schema",
    handler: async (_args, ctx) => {
      const answer = await ctx.elicit({ message: "How much?", requestedSchema: RAW_FORM });
      seen.push(answer.content);
      return answer.action;
    },
  });
  return s;
}

const RAW_UNFIT: [string, unknown, string][] = [
  ["a string for an integer", { count: "3", unit: "kg" }, "- count: expected an integer"],
  ["a fraction for an integer", { count: 1.5, unit: "kg" }, "- count: expected an integer"],
  ["a number past the maximum", { count: 101, unit: "kg" }, "- count: too big: expected at most 100"],
  ["a value outside the choices", { count: 1, unit: "g" }, '- unit: expected one of "kg"|"lb"'],
  ["a missing required field", { unit: "kg" }, "- count: required"],
  ["no content at all", undefined, "- count: required"],
  ["content that is not an object", "3 kg", "- count: required"],
  ["a string too long", { count: 1, unit: "kg", note: "123456" }, "- note: too big: expected at most 5 characters"],
  [
    "a multi-select item outside the enum",
    { count: 1, unit: "kg", tags: ["a", "z"] },
    '- tags: expected items of "a"|"b"|"c"',
  ],
  [
    "too many multi-select items",
    { count: 1, unit: "kg", tags: ["a", "b", "c"] },
    "- tags: too big: expected at most 2 items",
  ],
  ["an object for a boolean", { count: 1, unit: "kg", sure: { deep: [1] } }, "- sure: expected a boolean"],
];

describe.each(["2025-11-25", "2026-07-28"] as const)(
  "an answer to a raw JSON Schema form, in %s",
  (protocolVersion) => {
    it.each(RAW_UNFIT)(
      "%s: prompts/get is -32602 naming the field, tools/call isError",
      async (_what, content, line) => {
        const seen: unknown[] = [];
        const client = await createTestClient(rawServer(seen), {
          protocolVersion,
          elicit: async () => ({ action: "accept", content }) as never,
        });
        const error = await rpcError(client.getPrompt("weigh"));
        expect(error.code).toBe(ErrorCode.InvalidParams);
        expect(error.message).toContain(line);
        const result = await client.callTool("weigh");
        expect(result.isError).toBe(true);
        expect(result.content[0]).toMatchObject({ type: "text", text: expect.stringContaining(line) });
        expect(seen).toEqual([]);
      },
    );

    it("a fitting answer reaches the handler without the fields the form did not name", async () => {
      const seen: unknown[] = [];
      const client = await createTestClient(rawServer(seen), {
        protocolVersion,
        elicit: async () =>
          ({
            action: "accept",
            content: JSON.parse(
              '{"count":3,"unit":"lb","tags":["c"],"sure":false,"extra":{"deep":[1]},"__proto__":{"admin":true}}',
            ),
          }) as never,
      });
      expect((await client.callTool("weigh")).content).toEqual([{ type: "text", text: "accept" }]);
      expect(seen).toEqual([{ count: 3, unit: "lb", tags: ["c"], sure: false }]);
      expect(Object.getPrototypeOf(seen[0])).toBe(Object.prototype);
      expect((seen[0] as { admin?: unknown }).admin).toBeUndefined();
    });
  },
);

describe.each(["2025-11-25", "2026-07-28"] as const)(
  "an answer whose action is not accept, decline or cancel, in %s",
  (protocolVersion) => {
    it.each([
      ["maybe", '"maybe"'],
      [["accept"], "an array"],
      [undefined, "undefined"],
    ])(
      "action %j: prompts/get is -32602, tools/call the tool's isError, each naming the action",
      async (action, shown) => {
        const client = await createTestClient(server(), {
          protocolVersion,
          elicit: async () => ({ action, content: { count: 1, unit: "kg" } }) as never,
        });
        const said = `The client's elicitation answer has no valid action (accept, decline or cancel): ${shown}`;
        const error = await rpcError(client.getPrompt("weigh"));
        expect(error.code).toBe(ErrorCode.InvalidParams);
        expect(error.message).toBe(said);
        const result = await client.callTool("weigh");
        expect(result).toMatchObject({ content: [{ type: "text", text: said }], isError: true });
      },
    );
  },
);
