// Legacy dialect only: emitDecoratorMetadata lets a schema-carrying parameter class supply the input schema.
import { createTestClient, type LogEntry } from "@toolsmith/core";
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

// As esbuild compiles legacy decorators: applied by hand, so no design:paramtypes comes with the method.
function withoutMetadata(logged: LogEntry[]) {
  class Bare extends McpServer {
    constructor() {
      super({ logger: (entry) => logged.push(entry) });
    }
    add({ a, b }: AddInput) {
      return a + b;
    }
    count() {
      return 0;
    }
    typed({ a }: { a: number }) {
      return a;
    }
  }
  const proto = Bare.prototype as unknown as McpServer;
  for (const key of ["add", "count"] as const) {
    tool({ description: key })(proto, key, Object.getOwnPropertyDescriptor(Bare.prototype, key) as never);
  }
  const typed = Object.getOwnPropertyDescriptor(Bare.prototype, "typed") as never;
  tool({ description: "typed", input: { a: z.number() } })(proto, "typed", typed);
  return Bare;
}

describe("legacy decorators without metadata", () => {
  it("warn once, through the server's logger, when a tool with a parameter has no input schema", async () => {
    const logged: LogEntry[] = [];
    const Bare = withoutMetadata(logged);
    const client = await createTestClient(new Bare());
    await client.callTool("add", { a: 1, b: 2 });
    await createTestClient(new Bare());
    expect(logged).toEqual([
      {
        level: "warning",
        message: expect.stringMatching(/^Bare: tool "add" has no input schema\. .*design:paramtypes/),
      },
    ]);
  });

  it("with metadata, a schema-class tool says nothing", async () => {
    const logged: LogEntry[] = [];
    class Metadata extends McpServer {
      constructor() {
        super({ logger: (entry) => logged.push(entry) });
      }
      @tool({ description: "Add two numbers" })
      add({ a, b }: AddInput) {
        return a + b;
      }
    }
    await (await createTestClient(new Metadata())).callTool("add", { a: 1, b: 2 });
    expect(logged).toEqual([]);
  });
});
