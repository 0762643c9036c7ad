// Schema classes (schema-class.ts), legacy dialect only: emitDecoratorMetadata lets a schema-carrying parameter class
// supply the input schema, and McpServer warns of a legacy tool whose schema no metadata could supply.
import { createServer, type LogEntry, type RequestContext } from "@toolsmith/core";
import { createTestClient } from "@toolsmith/core/testing";
import { McpServer, schemaClass, tool } from "@toolsmith/decorators";
import { type } from "arktype";
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

class TripInput extends schemaClass(type({ to: "string", "seats?": "number.integer" })) {}

class Desk extends McpServer {
  @tool({ description: "Book a trip" })
  book({ to, seats }: TripInput) {
    return `${seats ?? 1} to ${to}`;
  }
}

describe("legacy decorators: a schema class of another library", () => {
  it("an ArkType schema class supplies the input schema and validates as zod's does", async () => {
    const client = await createTestClient(new Desk());
    const [book] = await client.listTools();
    expect(book?.inputSchema).toEqual({
      type: "object",
      properties: { to: { type: "string" }, seats: { type: "integer" } },
      required: ["to"],
    });
    expect(await client.callTool("book", { to: "Oslo" })).toMatchObject({ content: [{ text: "1 to Oslo" }] });
    expect(await client.callTool("book", {})).toMatchObject({
      isError: true,
      content: [{ type: "text", text: 'Invalid arguments for tool "book":\n- to: required (expected string)' }],
    });
  });
});

// As esbuild compiles legacy decorators: applied by hand, so no design:paramtypes comes with the method.
function withoutMetadata(logged: LogEntry[] | undefined) {
  class Bare extends McpServer {
    constructor() {
      super(logged ? { logger: (entry) => logged.push(entry) } : {});
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

// A tool that takes no arguments but reads ctx, its unused first parameter named as such.
class NoArguments extends McpServer {
  constructor(readonly logged: LogEntry[]) {
    super({ logger: (entry) => logged.push(entry) });
  }
  importAll(_args: unknown, ctx: RequestContext) {
    return String(ctx.requestId);
  }
  async importSome(_: unknown, ctx: RequestContext) {
    return String(ctx.requestId);
  }
}
for (const key of ["importAll", "importSome"] as const) {
  const proto = NoArguments.prototype as unknown as McpServer;
  tool({ description: key })(proto, key, Object.getOwnPropertyDescriptor(NoArguments.prototype, key) as never);
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

  it("a tool whose unused first parameter says so (_args, ctx) is not warned about", async () => {
    const logged: LogEntry[] = [];
    const client = await createTestClient(new NoArguments(logged));
    expect((await client.callTool("importAll")).content).toEqual([{ type: "text", text: "1" }]);
    expect((await client.callTool("importSome")).content).toEqual([{ type: "text", text: "2" }]);
    expect(logged).toEqual([]);
  });

  it("a mounted module's warning reaches the server it is mounted in, once", async () => {
    const logged: LogEntry[] = [];
    const Bare = withoutMetadata(undefined);
    const app = createServer({ name: "app", version: "1", logger: (entry) => logged.push(entry) });
    app.mount("bare", new Bare());
    await createTestClient(app);
    createServer({ name: "again", version: "1", logger: (entry) => logged.push(entry) }).mount("bare", new Bare());
    await createTestClient(app);
    expect(logged).toEqual([
      { level: "warning", message: expect.stringMatching(/^Bare: tool "add" has no input schema\./) },
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
