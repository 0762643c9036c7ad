// Legacy dialect only: emitDecoratorMetadata lets a schema-carrying parameter class supply the input schema.
import { createTestClient } from "@toolsmith/core";
import { McpServer, schemaClass, tool } from "@toolsmith/decorators";
import { describe, expect, it } from "vitest";
import { z } from "zod";

class AddInput extends schemaClass(z.object({ a: z.number(), b: z.number() })) {}

class Calc extends McpServer {
  @tool({ description: "Add two numbers" })
  add({ a, b }: AddInput) {
    return a + b;
  }
}

describe("legacy decorators: schema classes", () => {
  it("a parameter declared as a schema class supplies the input schema", async () => {
    const client = await createTestClient(new Calc());
    const [add] = await client.listTools();
    expect(add?.inputSchema).toEqual({
      type: "object",
      properties: { a: { type: "number" }, b: { type: "number" } },
      required: ["a", "b"],
    });
    expect(await client.callTool("add", { a: 2, b: 3 })).toMatchObject({ content: [{ type: "text", text: "5" }] });
    expect(await client.callTool("add", { a: "2" })).toMatchObject({ isError: true });
  });
});
