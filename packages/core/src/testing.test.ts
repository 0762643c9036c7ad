import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createServer, createTestClient, McpError } from "./index.js";

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
