import { createServer } from "@toolsmith/core";
import { jsonSchema } from "@toolsmith/core/json-schema";
import { createRedisEngine } from "@toolsmith/redis";
import { describe, expect, it } from "vitest";
import { createHttpHandler, type HttpHandler } from "../doors/http-handler.js";
import { H, initialize, post } from "../exchange/requests.test-util.js";
import { sharedRedis } from "./shared-redis.test-util.js";

// An elicitation form written as raw JSON Schema, asked on A and answered by a POST to B (handshake era).

const { redis, engines, handlers } = sharedRedis();

const FORM = jsonSchema({
  type: "object",
  properties: { seats: { type: "integer", minimum: 1 } },
  required: ["seats"],
  additionalProperties: false,
});

function process_(namespace: string): HttpHandler {
  const engine = createRedisEngine({ url: redis.url, namespace });
  engines.push(engine);
  const server = createServer({ name: "elicit-across", version: "1", engine });
  server.tool({
    name: "book",
    description: "Asks how many seats",
    handler: async (_args, ctx) => {
      const answer = await ctx.elicit({ message: "How many?", schema: FORM });
      return answer.action === "accept" ? `booked ${(answer.content as { seats: number }).seats}` : answer.action;
    },
  });
  const handle = createHttpHandler(server);
  handlers.push(handle);
  return handle;
}

describe("a raw JSON Schema elicitation form across processes", () => {
  it.each([
    [{ seats: 2 }, '"text":"booked 2"'],
    [{ seats: 0 }, '"isError":true'],
  ])("asked on A, %j answered on B", async (content, expected) => {
    const namespace = `elicit-across-${Date.now()}-${content.seats}`;
    const [a, b] = [process_(namespace), process_(namespace)] as const;
    const opened = await a(post(initialize(1, "2025-11-25", { elicitation: {} }), H));
    const session = opened.headers.get("mcp-session-id") as string;
    const headers = { ...H, "mcp-session-id": session };
    await a(post({ jsonrpc: "2.0", method: "notifications/initialized" }, headers));
    const asked = await a(
      post({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "book", arguments: {} } }, headers),
    );
    const reader = (asked.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = "";
    while (!text.includes("elicitation/create")) text += decoder.decode((await reader.read()).value);
    const question = JSON.parse(text.slice(text.indexOf("data: ") + 6).split("\n")[0] as string) as {
      id: string;
      params: { requestedSchema: unknown };
    };
    expect(question.params.requestedSchema).toEqual({
      type: "object",
      properties: { seats: { type: "integer", minimum: 1 } },
      required: ["seats"],
    });
    const answered = await b(post({ jsonrpc: "2.0", id: question.id, result: { action: "accept", content } }, headers));
    expect(answered.status).toBe(202);
    while (!text.includes('"id":2,')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    await reader.cancel();
    expect(text).toContain(expected);
  });
});
