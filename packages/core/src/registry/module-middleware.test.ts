import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { AuthInfo, RequestContext } from "../context/context.js";
import type { Middleware } from "../middleware/compose.js";
import { rateLimit } from "../middleware/kit/rate-limit.js";
import type { Server } from "../server/servable.js";
import { createServer } from "../server/server.js";
import { createTestClient } from "../testing/client.js";
import { rpcError } from "../testing/expect-errors.test-util.js";
import { McpError } from "../wire/errors.js";

// One suite, run on a module served alone, mounted in a server, and mounted in a module mounted in a server:
// whatever the module's own middleware enforces alone, it enforces mounted, seeing the module-local operation.

const admin: AuthInfo = { subject: "ada", scopes: ["admin"] };
const reader: AuthInfo = { subject: "rob", scopes: ["read"] };
const isAdmin = (ctx: RequestContext) => ctx.auth?.scopes.includes("admin") === true;

const adminOnly =
  (name: string): Middleware =>
  (operation, next) => {
    if (operation.name === name && !isAdmin(operation.ctx)) throw new McpError(-32001, `${name} is for admins`);
    return next();
  };

// Hides what is "internal" from every list and completion, and refuses it, by the module's own names.
const hideInternal: Middleware = async (operation, next) => {
  const target = operation.name ?? operation.uri ?? "";
  if (target.includes("internal")) throw new McpError(-32001, `${target} is internal`);
  const result = await next();
  const keep = (item: { name?: string; uri?: string; uriTemplate?: string }) =>
    !`${item.name} ${item.uri} ${item.uriTemplate}`.includes("internal");
  switch (operation.method) {
    case "tools/list":
    case "prompts/list":
    case "resources/list":
    case "resources/templates/list": {
      const key = Object.keys(result).find((name) => Array.isArray(result[name])) as string;
      return { ...result, [key]: (result[key] as { name?: string }[]).filter(keep) };
    }
    case "completion/complete": {
      const ref = operation.params.ref as { name?: string; uri?: string };
      if (ref.name !== undefined && ref.name !== "brief") throw new McpError(-32001, `no completions for ${ref.name}`);
      const completion = result.completion as { values: string[] };
      return { completion: { ...completion, values: completion.values.filter((value) => value !== "internal") } };
    }
    default:
      return result;
  }
};

function desk(trail: string[]): Server {
  const s = createServer({ name: "desk", version: "1" });
  s.tool({ name: "read", description: "Read", handler: () => "read" });
  s.tool({ name: "wipe", description: "Wipe", handler: () => "wiped" });
  s.tool({ name: "stamp", description: "Stamp", handler: () => "stamped" });
  s.tool({ name: "internal", description: "Hidden by middleware", handler: () => "internal" });
  const choices = () => ["alpha", "beta", "internal"];
  s.prompt({
    name: "brief",
    description: "Brief",
    args: { topic: z.string() },
    complete: { topic: choices },
    handler: ({ topic }) => topic,
  });
  s.prompt({ name: "internal_prompt", description: "Hidden", handler: () => "internal" });
  s.resource({ uri: "desk://notes", handler: () => "notes" });
  s.resource({ uri: "desk://internal", handler: () => "internal" });
  s.resource({
    uriTemplate: "desk://items/{id}",
    complete: { id: () => ["1", "internal"] },
    list: () => [
      { uri: "desk://items/1", name: "one" },
      { uri: "desk://items/internal", name: "internal item" },
    ],
    handler: ({ id }) => `item ${String(id)}`,
  });
  s.resource({ uriTemplate: "desk://internal/{id}", handler: () => "internal" });
  s.use(
    (operation, next) => {
      trail.push(`${operation.method} ${operation.name ?? operation.uri ?? ""}`.trim());
      return next();
    },
    adminOnly("wipe"),
    rateLimit({ capacity: 2, perSecond: 1, now: () => 0, costs: (operation) => (operation.name === "stamp" ? 1 : 0) }),
    hideInternal,
  );
  return s;
}

type Mode = "alone" | "mounted" | "nested";

/** The desk served three ways, and the name a client uses for one of its tools or prompts. */
function served(mode: Mode, trail: string[]): { server: Server; name: (local: string) => string } {
  const module = desk(trail);
  if (mode === "alone") return { server: module, name: (local) => local };
  if (mode === "mounted") {
    const app = createServer({ name: "app", version: "1" }).mount("dmod", module);
    app.tool({ name: "own", description: "The app's own", handler: () => "own" });
    return { server: app, name: (local) => `dmod.${local}` };
  }
  const middle = createServer({ name: "middle", version: "1" }).mount("inner", module);
  return {
    server: createServer({ name: "app", version: "1" }).mount("dmod", middle),
    name: (local) => `dmod.inner.${local}`,
  };
}

describe.each([
  ...(["alone", "mounted", "nested"] as const).flatMap((mode) =>
    (["2025-11-25", "2026-07-28"] as const).map((protocolVersion) => ({ mode, protocolVersion })),
  ),
])("a module's own middleware ($mode, $protocolVersion)", ({ mode, protocolVersion }) => {
  const client = async (auth: AuthInfo, trail: string[] = []) => {
    const { server, name } = served(mode, trail);
    return { client: await createTestClient(server, { protocolVersion, auth }), name, trail };
  };

  it("a middleware checking operation.name guards a tool by the module's own name", async () => {
    const { client: asReader, name, trail } = await client(reader);
    expect(await rpcError(asReader.callTool(name("wipe")))).toMatchObject({
      code: -32001,
      message: "wipe is for admins",
    });
    expect(await asReader.callTool(name("read"))).toMatchObject({ content: [{ text: "read" }] });
    expect(trail).toEqual(["tools/call wipe", "tools/call read"]);
    const { client: asAdmin } = await client(admin);
    expect(await asAdmin.callTool(name("wipe"))).toMatchObject({ content: [{ text: "wiped" }] });
  });

  it("a rateLimit inside the module limits its tool", async () => {
    const { client: c, name } = await client(reader);
    await c.callTool(name("stamp"));
    await c.callTool(name("stamp"));
    expect((await rpcError(c.callTool(name("stamp")))).code).toBe(-32010);
    expect(await c.callTool(name("read"))).toMatchObject({ content: [{ text: "read" }] });
  });

  it("the module's middleware filters its own lists", async () => {
    const { client: c, name } = await client(reader);
    const tools = (await c.listTools()).map((tool) => tool.name).filter((tool) => tool !== "own");
    expect(tools).toEqual(["read", "wipe", "stamp"].map(name));
    expect((await c.listPrompts()).map((prompt) => prompt.name)).toEqual([name("brief")]);
    expect((await c.listResources()).map((resource) => resource.uri)).toEqual(["desk://notes", "desk://items/1"]);
    expect((await c.listResourceTemplates()).map((template) => template.uriTemplate)).toEqual(["desk://items/{id}"]);
  });

  it("the module's middleware filters its own completions, seeing its own prompt name", async () => {
    const { client: c, name, trail } = await client(reader);
    expect(await c.complete({ type: "ref/prompt", name: name("brief") }, { name: "topic", value: "" })).toMatchObject({
      values: ["alpha", "beta"],
    });
    expect(
      await c.complete({ type: "ref/resource", uri: "desk://items/{id}" }, { name: "id", value: "" }),
    ).toMatchObject({ values: ["1"] });
    expect(trail).toEqual(["completion/complete", "completion/complete"]);
  });

  it("the module's middleware runs around its reads and prompts", async () => {
    const { client: c, name, trail } = await client(reader);
    expect(await c.readResource("desk://items/3")).toMatchObject({ contents: [{ text: "item 3" }] });
    expect(await rpcError(c.readResource("desk://internal"))).toMatchObject({ code: -32001 });
    expect(await c.getPrompt(name("brief"), { topic: "x" })).toMatchObject({ messages: [{ content: { text: "x" } }] });
    expect(await rpcError(c.getPrompt(name("internal_prompt")))).toMatchObject({ code: -32001 });
    expect(await rpcError(c.callTool(name("internal")))).toMatchObject({ code: -32001 });
    expect(trail).toEqual([
      "resources/read desk://items/3",
      "resources/read desk://internal",
      "prompts/get brief",
      "prompts/get internal_prompt",
      "tools/call internal",
    ]);
  });

  it("an unknown name is answered with the name the client sent", async () => {
    const { client: c, name } = await client(reader);
    expect((await rpcError(c.callTool(name("zzz")))).message).toBe(`Unknown tool: ${name("zzz")}`);
    expect((await rpcError(c.getPrompt(name("zzz")))).message).toBe(`Unknown prompt: ${name("zzz")}`);
  });
});

describe.each(["2025-11-25", "2026-07-28"] as const)("nested modules (%s)", (protocolVersion) => {
  it("each level's middleware sees the operation as that level names it, and enforces its own rules", async () => {
    const trail: string[] = [];
    const record =
      (level: string): Middleware =>
      (operation, next) => {
        trail.push(`${level} ${operation.name}`);
        return next();
      };
    const leaf = createServer({ name: "leaf", version: "1" }).use(record("leaf"), adminOnly("wipe"));
    leaf.tool({ name: "wipe", description: "Wipe", handler: () => "wiped" });
    leaf.tool({ name: "read", description: "Read", handler: () => "read" });
    const middle = createServer({ name: "middle", version: "1" }).use(record("middle"), adminOnly("leaf.read"));
    middle.mount("leaf", leaf);
    const top = createServer({ name: "top", version: "1" }).use(record("top")).mount("mid", middle);
    const c = await createTestClient(top, { protocolVersion, auth: reader });
    expect(await rpcError(c.callTool("mid.leaf.wipe"))).toMatchObject({ message: "wipe is for admins" });
    expect(await rpcError(c.callTool("mid.leaf.read"))).toMatchObject({ message: "leaf.read is for admins" });
    expect(trail).toEqual([
      "top mid.leaf.wipe",
      "middle leaf.wipe",
      "leaf wipe",
      "top mid.leaf.read",
      "middle leaf.read",
    ]);
  });
});

it("2026-07-28: a list through a module's middleware (which may filter per caller) is cacheScope private", async () => {
  const module = createServer({ name: "mod", version: "1" }).use((_operation, next) => next());
  module.tool({ name: "t", description: "t", handler: () => 1 });
  const app = createServer({ name: "app", version: "1" }).mount("mod", module);
  expect(await (await createTestClient(app)).request("tools/list")).toMatchObject({ cacheScope: "private" });
});
