// A decorated module's @use middleware (use.ts), served alone and mounted (and mounted in a module), in both eras:
// run in both decorator dialects (see dialect-suite.ts).

import { McpError, type RequestContext } from "@toolsmith/core";
import { type Middleware, rateLimit } from "@toolsmith/core/middleware";
import { createTestClient } from "@toolsmith/core/testing";
import { McpServer, prompt, resource, tool, use } from "@toolsmith/decorators";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { DIALECT } from "./dialect-suite.js";

const isAdmin = (ctx: RequestContext) => ctx.auth?.scopes.includes("admin") === true;

const adminOnly: Middleware = (operation, next) => {
  if (!isAdmin(operation.ctx)) throw new McpError(-32001, `${operation.name ?? operation.uri} is for admins`);
  return next();
};

const trail: string[] = [];

// Class-level: records what the module sees, and hides what is "internal" from its lists and completions.
const hideInternal: Middleware = async (operation, next) => {
  trail.push(`${operation.method} ${operation.name ?? operation.uri ?? ""}`.trim());
  if ((operation.name ?? operation.uri ?? "").includes("internal")) throw new McpError(-32001, "internal");
  const result = await next();
  const keep = (item: { name?: string; uri?: string }) => !`${item.name} ${item.uri}`.includes("internal");
  if (operation.method === "tools/list") return { ...result, tools: (result.tools as { name: string }[]).filter(keep) };
  if (operation.method === "prompts/list") return { ...result, prompts: (result.prompts as []).filter(keep) };
  if (operation.method === "resources/list") return { ...result, resources: (result.resources as []).filter(keep) };
  if (operation.method === "completion/complete") {
    const completion = result.completion as { values: string[] };
    return { completion: { ...completion, values: completion.values.filter((value) => value !== "internal") } };
  }
  return result;
};

@use(hideInternal)
class Desk extends McpServer {
  name = "desk";
  version = "1";

  @tool({ description: "Anyone" })
  read() {
    return "read";
  }

  @use(adminOnly)
  @tool({ description: "Admins only, by @use" })
  wipe() {
    return "wiped";
  }

  @use(rateLimit({ capacity: 2, perSecond: 1, now: () => 0 }))
  @tool({ description: "Twice per caller" })
  stamp() {
    return "stamped";
  }

  @tool({ description: "Hidden by the class's middleware" })
  internal() {
    return "internal";
  }

  @use(adminOnly)
  @prompt({ description: "Admins only", args: { topic: z.string() }, complete: { topic: () => ["a", "internal"] } })
  brief({ topic }: { topic: string }) {
    return `brief on ${topic}`;
  }

  @use(adminOnly)
  @resource("desk://ledger", { description: "Admins only" })
  ledger() {
    return "the ledger";
  }

  @resource("desk://internal", { description: "Hidden by the class's middleware" })
  hidden() {
    return "internal";
  }
}

class Host extends McpServer {
  name = "host";
  version = "1";
  constructor() {
    super({ mount: { dmod: new Desk() } });
  }
}

class Outer extends McpServer {
  name = "outer";
  version = "1";
  constructor() {
    super({ mount: { top: new Host() } });
  }
}

const MODES = [
  { mode: "alone", make: () => new Desk(), prefix: "" },
  { mode: "mounted", make: () => new Host(), prefix: "dmod." },
  { mode: "nested", make: () => new Outer(), prefix: "top.dmod." },
] as const;

let callers = 0;

describe.each(
  MODES.flatMap((m) => (["2025-11-25", "2026-07-28"] as const).map((protocolVersion) => ({ ...m, protocolVersion }))),
)(`a decorated module's @use ($mode, $protocolVersion, ${DIALECT})`, ({ make, prefix, protocolVersion }) => {
  // A caller of its own per test: the rate limit's buckets belong to the class.
  const connect = (admin = false) =>
    createTestClient(make(), {
      protocolVersion,
      auth: { subject: `caller-${++callers}`, scopes: admin ? ["admin"] : [] },
    });

  it("a method-level @use(adminOnly) guards its tool, prompt and resource", async () => {
    const c = await connect();
    await expect(c.callTool(`${prefix}wipe`)).rejects.toMatchObject({ code: -32001, message: "wipe is for admins" });
    await expect(c.getPrompt(`${prefix}brief`, { topic: "x" })).rejects.toMatchObject({ code: -32001 });
    await expect(c.readResource("desk://ledger")).rejects.toMatchObject({ code: -32001 });
    expect(await c.callTool(`${prefix}read`)).toMatchObject({ content: [{ text: "read" }] });
    const asAdmin = await connect(true);
    expect(await asAdmin.callTool(`${prefix}wipe`)).toMatchObject({ content: [{ text: "wiped" }] });
    expect(await asAdmin.getPrompt(`${prefix}brief`, { topic: "x" })).toMatchObject({
      messages: [{ content: { text: "brief on x" } }],
    });
    expect(await asAdmin.readResource("desk://ledger")).toMatchObject({ contents: [{ text: "the ledger" }] });
  });

  it("a method-level @use(rateLimit) limits its tool", async () => {
    const c = await connect();
    await c.callTool(`${prefix}stamp`);
    await c.callTool(`${prefix}stamp`);
    await expect(c.callTool(`${prefix}stamp`)).rejects.toMatchObject({ code: -32010 });
    expect(await c.callTool(`${prefix}read`)).toMatchObject({ content: [{ text: "read" }] });
  });

  it("the class-level @use sees local names and filters the module's own lists and completions", async () => {
    const c = await connect(true);
    trail.length = 0;
    expect((await c.listTools()).map((t) => t.name)).toEqual(["read", "wipe", "stamp"].map((n) => prefix + n));
    expect((await c.listPrompts()).map((p) => p.name)).toEqual([`${prefix}brief`]);
    expect((await c.listResources()).map((r) => r.uri)).toEqual(["desk://ledger"]);
    const ref = { type: "ref/prompt" as const, name: `${prefix}brief` };
    expect(await c.complete(ref, { name: "topic", value: "" })).toMatchObject({ values: ["a"] });
    await expect(c.callTool(`${prefix}internal`)).rejects.toMatchObject({ code: -32001 });
    await expect(c.readResource("desk://internal")).rejects.toMatchObject({ code: -32001 });
    await c.callTool(`${prefix}read`);
    expect(trail).toEqual([
      "tools/list",
      "prompts/list",
      "resources/list",
      "completion/complete",
      "tools/call internal",
      "resources/read desk://internal",
      "tools/call read",
    ]);
  });
});

describe(`a module of a module (${DIALECT})`, () => {
  it("each level's @use sees the name as that level knows it", async () => {
    const seen: string[] = [];
    @use((operation, next) => {
      seen.push(`leaf ${operation.name}`);
      return next();
    })
    class Leaf extends McpServer {
      @use((operation, next) => {
        seen.push(`leaf method ${operation.name}`);
        return next();
      })
      @tool({ description: "Ping" })
      ping() {
        return "pong";
      }
    }
    @use((operation, next) => {
      seen.push(`middle ${operation.name}`);
      return next();
    })
    class Middle extends McpServer {
      constructor() {
        super({ mount: { leaf: new Leaf() } });
      }
    }
    class Top extends McpServer {
      constructor() {
        super({ mount: { middle: new Middle() } });
      }
    }
    const c = await createTestClient(new Top());
    expect(await c.callTool("middle.leaf.ping")).toMatchObject({ content: [{ text: "pong" }] });
    expect(seen).toEqual(["middle leaf.ping", "leaf ping", "leaf method ping"]);
  });
});
