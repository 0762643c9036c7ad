import { createServer, ErrorCode, MetaKey } from "@toolsmith/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { type HttpServer, listen } from "./listen.js";

// What a client gets wrong, over a real node:http listener: a JSON-RPC answer with the status the transport gives
// its code, never a bare 500.

const META = { [MetaKey.protocolVersion]: "2026-07-28", [MetaKey.clientCapabilities]: { elicitation: {} } };
const FORM = { count: z.number().int() };

let http: HttpServer;

beforeAll(async () => {
  const server = createServer({ name: "bad-input", version: "1" });
  server.prompt({
    name: "weigh",
    description: "Asks how much",
    handler: async (_args, ctx) => {
      const answer = await ctx.elicit({ message: "How much?", schema: FORM });
      return answer.action === "accept" ? `Weigh ${answer.content.count}` : "Nothing";
    },
  });
  server.resource({
    uri: "scale://reading",
    handler: async (ctx) => {
      const answer = await ctx.elicit({ message: "How much?", schema: FORM });
      return answer.action === "accept" ? String(answer.content.count) : "none";
    },
  });
  http = await listen(server, { port: 0, log: null });
});

afterAll(() => http.close());

interface Answer {
  status: number;
  body: { id?: unknown; result?: Record<string, unknown>; error?: { code: number; message: string } };
}

async function post2026(method: string, params: Record<string, unknown>, name?: string): Promise<Answer> {
  const response = await fetch(http.url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": method,
      ...(name === undefined ? {} : { "mcp-name": name }),
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: { ...params, _meta: META } }),
  });
  const text = await response.text();
  return { status: response.status, body: text === "" ? {} : JSON.parse(text) };
}

describe("2026-07-28: an elicitation answer that does not fit its form", () => {
  for (const [method, key, target] of [
    ["prompts/get", "name", "weigh"],
    ["resources/read", "uri", "scale://reading"],
  ] as const) {
    it(`${method} is 400 + -32602 naming the field, not 500`, async () => {
      const first = await post2026(method, { [key]: target }, target);
      expect(first.status).toBe(200);
      expect(first.body.result?.resultType).toBe("input_required");
      const retry = await post2026(
        method,
        {
          [key]: target,
          requestState: first.body.result?.requestState,
          inputResponses: { "elicit-1": { action: "accept", content: { count: "many" } } },
        },
        target,
      );
      expect(retry.status).toBe(400);
      expect(retry.body.error?.code).toBe(ErrorCode.InvalidParams);
      expect(retry.body.error?.message).toContain("- count:");
    });
  }
});
