// @use on a class and on a method (use.ts), beside a guard and a mounted module.
// Run in both decorator dialects (see dialect-suite.ts).
import { createTestClient } from "@toolsmith/core/testing";
import { McpServer, tool, use } from "@toolsmith/decorators";
import { describe, expect, it } from "vitest";
import { DIALECT } from "./dialect-suite.js";

const seen: string[] = [];

@use(async (operation, next) => {
  seen.push(`class before ${operation.method}`);
  const result = await next();
  seen.push(`class after ${operation.method}`);
  return result;
})
class Guarded extends McpServer {
  @use((operation, next) => {
    seen.push(`method ${operation.name}`);
    return next();
  })
  @tool({ description: "Open to all" })
  open() {
    return "open";
  }

  @tool({ description: "Admins only", guard: (ctx) => ctx.auth?.scopes.includes("admin") === true })
  wipe() {
    return "wiped";
  }
}

class Composed extends McpServer {
  constructor() {
    super({ mount: { guarded: new Guarded() } });
  }

  @tool({ description: "The parent's own" })
  own() {
    return "own";
  }
}

describe(`middleware, guards and modules (${DIALECT})`, () => {
  it("@use on the class runs around every operation; @use on a method only around that method's", async () => {
    seen.length = 0;
    const client = await createTestClient(new Guarded());
    await client.callTool("open");
    expect(seen).toEqual(["class before tools/call", "method open", "class after tools/call"]);
    seen.length = 0;
    await client.listTools();
    expect(seen).toEqual(["class before tools/list", "class after tools/list"]);
  });

  it("a guard hides a method from callers it refuses, in lists and calls", async () => {
    const anonymous = await createTestClient(new Guarded());
    expect((await anonymous.listTools()).map((t) => t.name)).toEqual(["open"]);
    await expect(anonymous.callTool("wipe")).rejects.toThrow("Unknown tool: wipe");
    const admin = await createTestClient(new Guarded(), { auth: { subject: "root", scopes: ["admin"] } });
    expect((await admin.listTools()).map((t) => t.name)).toEqual(["open", "wipe"]);
  });

  it("super({ mount }) serves another class as a module under its prefix", async () => {
    const client = await createTestClient(new Composed(), { auth: { subject: "root", scopes: ["admin"] } });
    expect((await client.listTools()).map((t) => t.name)).toEqual(["own", "guarded.open", "guarded.wipe"]);
    expect(await client.callTool("guarded.open")).toMatchObject({ content: [{ text: "open" }] });
  });
});
