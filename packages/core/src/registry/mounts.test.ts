import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { AuthInfo, RequestContext } from "../context/context.js";
import type { Server } from "../index.js";
import type { Middleware } from "../middleware/compose.js";
import { rateLimit } from "../middleware/kit/rate-limit.js";
import { createServer } from "../server/server.js";
import { createTestClient } from "../testing/client.js";
import { definitionError, rpcError } from "../testing/expect-errors.test-util.js";
import { McpError } from "../wire/errors.js";
import { ErrorCode } from "../wire/json-rpc.js";

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

function github() {
  const s = createServer({ name: "github-tools", version: "1" });
  s.tool({
    name: "create_issue",
    description: "Open an issue",
    input: { title: z.string() },
    handler: ({ title }) => `#1 ${title}`,
  });
  s.prompt({
    name: "triage",
    description: "Triage",
    args: { repo: z.string() },
    complete: { repo: () => ["toolsmith"] },
    handler: ({ repo }) => `Triage ${repo}`,
  });
  s.resource({
    uriTemplate: "github://issues/{n}",
    complete: { n: () => ["1", "2"] },
    handler: ({ n }) => `issue ${String(n)}`,
  });
  return s;
}

function calendar() {
  const s = createServer({ name: "calendar", version: "1" });
  s.tool({ name: "create_issue", description: "Also called create_issue", handler: () => "calendar" });
  s.resource({ uri: "calendar://today", handler: () => "nothing today" });
  return s;
}

describe.each(["2025-11-25", "2026-07-28"] as const)("mounted modules in %s", (protocolVersion) => {
  it("tools and prompts under prefix.name, resources at their own URIs, each served by its module", async () => {
    const app = createServer({ name: "app", version: "1" });
    app.tool({ name: "ping_all", description: "Own tool", handler: () => "pong" });
    app.mount("github", github()).mount("calendar", calendar());
    const client = await createTestClient(app, { protocolVersion });
    expect((await client.listTools()).map((tool) => tool.name)).toEqual([
      "ping_all",
      "github.create_issue",
      "calendar.create_issue",
    ]);
    expect(await client.callTool("github.create_issue", { title: "Bug" })).toMatchObject({
      content: [{ text: "#1 Bug" }],
    });
    expect(await client.callTool("calendar.create_issue")).toMatchObject({ content: [{ text: "calendar" }] });
    expect((await client.listPrompts()).map((prompt) => prompt.name)).toEqual(["github.triage"]);
    expect(await client.getPrompt("github.triage", { repo: "r" })).toMatchObject({
      messages: [{ content: { text: "Triage r" } }],
    });
    expect(await client.readResource("calendar://today")).toMatchObject({ contents: [{ text: "nothing today" }] });
    expect(await client.readResource("github://issues/7")).toMatchObject({ contents: [{ text: "issue 7" }] });
    expect((await client.listResourceTemplates()).map((t) => t.uriTemplate)).toEqual(["github://issues/{n}"]);
    expect(
      await client.complete({ type: "ref/prompt", name: "github.triage" }, { name: "repo", value: "" }),
    ).toMatchObject({ values: ["toolsmith"] });
    expect(
      await client.complete({ type: "ref/resource", uri: "github://issues/{n}" }, { name: "n", value: "" }),
    ).toMatchObject({ values: ["1", "2"] });
    expect((await rpcError(client.callTool("github.nope"))).code).toBe(ErrorCode.InvalidParams);
  });

  it("capabilities are merged: a parent with nothing of its own advertises what its modules have", async () => {
    const app = createServer({ name: "app", version: "1", mount: { github: github() } });
    const client = await createTestClient(app, { protocolVersion });
    expect(client.serverResult.capabilities).toMatchObject({
      tools: { listChanged: true },
      prompts: { listChanged: true },
      resources: { listChanged: true },
      completions: {},
    });
  });

  it("a module's list changes and resource updates reach the parent's clients", async () => {
    const module = github();
    const app = createServer({ name: "app", version: "1" }).mount("github", module);
    const client = await createTestClient(app, { protocolVersion });
    if (protocolVersion === "2025-11-25") {
      await client.request("resources/subscribe", { uri: "github://issues/1" });
      module.tool({ name: "close_issue", description: "Close", handler: () => "closed" });
      module.resourceUpdated("github://issues/1");
      await tick();
      expect(client.notifications.map((n) => n.method)).toEqual([
        "notifications/resources/updated",
        "notifications/tools/list_changed",
      ]);
    } else {
      const listen = await client.listen({ toolsListChanged: true, resourceSubscriptions: ["github://issues/1"] });
      module.tool({ name: "close_issue", description: "Close", handler: () => "closed" });
      module.resourceUpdated("github://issues/1");
      await tick();
      expect(listen.notifications.map((n) => n.method)).toEqual([
        "notifications/resources/updated",
        "notifications/tools/list_changed",
      ]);
    }
    expect((await client.listTools()).map((tool) => tool.name)).toEqual(["github.create_issue", "github.close_issue"]);
  });
});

describe("mount clashes fail at mount time, naming both sources", () => {
  it("a prefix taken twice", () => {
    const app = createServer({ name: "app", version: "1" }).mount("github", github());
    expect(definitionError(() => app.mount("github", calendar())).message).toBe(
      'Mount prefix "github" is taken by server "github-tools" (mounted at "github"); mount server "calendar" (mounted at "github") under another prefix',
    );
  });

  it("a parent tool already under the prefix, or added later", () => {
    const app = createServer({ name: "app", version: "1" });
    app.tool({ name: "github.create_issue", description: "Mine", handler: () => 1 });
    expect(definitionError(() => app.mount("github", github())).message).toContain(
      'Tool "github.create_issue" is defined by this server and would also be server "github-tools"',
    );
    const other = createServer({ name: "other", version: "1" }).mount("github", github());
    expect(
      definitionError(() => other.tool({ name: "github.x", description: "x", handler: () => 1 })).message,
    ).toContain('would shadow server "github-tools" (mounted at "github")');
  });

  it("a resource URI or template served by two", () => {
    const app = createServer({ name: "app", version: "1" });
    app.resource({ uri: "calendar://today", handler: () => "mine" });
    expect(definitionError(() => app.mount("calendar", calendar())).message).toBe(
      'Resource "calendar://today" is served by both this server and server "calendar" (mounted at "calendar"); give one another URI',
    );
    const two = createServer({ name: "two", version: "1" }).mount("a", github());
    expect(definitionError(() => two.mount("b", github())).message).toContain(
      'Resource template "github://issues/{n}" is served by both server "github-tools"',
    );
  });

  it("a prefix that is not a name, or a server mounted into itself", () => {
    const app = createServer({ name: "app", version: "1" });
    expect(definitionError(() => app.mount("git hub", github())).message).toMatch(/^Mount prefix "git hub" is invalid/);
    expect(definitionError(() => app.mount("self", app)).message).toContain("mounting it would make a cycle");
  });
});

describe("modules, after review", () => {
  it("a cycle of mounts is refused, naming the module", () => {
    const a = createServer({ name: "a", version: "1" });
    const b = createServer({ name: "b", version: "1" });
    a.mount("b", b);
    expect(definitionError(() => b.mount("a", a)).message).toContain(
      'server "a" (mounted at "a") already serves this server',
    );
  });

  it("a module's own middleware runs around its operations, inside the parent's, seeing its own names", async () => {
    const trail: string[] = [];
    const module = github();
    module.use((operation, next) => {
      trail.push(`module ${operation.name ?? operation.uri}`);
      return next();
    });
    const app = createServer({ name: "app", version: "1" }).mount("github", module);
    app.use((operation, next) => {
      trail.push(`app ${operation.method}`);
      return next();
    });
    const client = await createTestClient(app);
    await client.callTool("github.create_issue", { title: "x" });
    await client.readResource("github://issues/3");
    expect(trail).toEqual(["app tools/call", "module create_issue", "app resources/read", "module github://issues/3"]);
  });

  it("an unknown name under a prefix is answered with the name the client used; registered() looks through modules", async () => {
    const app = createServer({ name: "app", version: "1" }).mount("github", github());
    const client = await createTestClient(app);
    expect((await rpcError(client.callTool("github.nope"))).message).toBe("Unknown tool: github.nope");
    expect(app.registered("tool", "github.create_issue")?.key).toBe("create_issue");
    expect(app.registered("resourceTemplate", "github://issues/{n}")).toBeDefined();
  });
});

describe("clashes after mounting, and through nested modules", () => {
  it("a module that later registers a URI its parent or a sibling serves is refused, naming both", () => {
    const app = createServer({ name: "app", version: "1" });
    app.resource({ uri: "x://one", handler: () => "parent" });
    const module = createServer({ name: "mod", version: "1" });
    const sibling = createServer({ name: "sib", version: "1" });
    app.mount("m", module).mount("s", sibling);
    expect(definitionError(() => module.resource({ uri: "x://one", handler: () => "module" })).message).toBe(
      'Resource "x://one" is served by both this server and server "mod" (mounted at "m"); give one another URI',
    );
    sibling.resource({ uriTemplate: "t://{id}", handler: () => "sibling" });
    expect(
      definitionError(() => module.resource({ uriTemplate: "t://{id}", handler: () => "module" })).message,
    ).toContain('is served by both server "sib" (mounted at "s") and server "mod"');
  });

  it("a parent that later registers a module's URI is refused", () => {
    const module = createServer({ name: "mod", version: "1" });
    module.resource({ uri: "x://one", handler: () => "module" });
    const app = createServer({ name: "app", version: "1" }).mount("m", module);
    expect(definitionError(() => app.resource({ uri: "x://one", handler: () => "parent" })).message).toContain(
      'Resource "x://one" is defined twice',
    );
  });

  it("a nested module's URI clashes with the grandparent's at mount time; long names are measured as the top lists them", () => {
    const top = createServer({ name: "top", version: "1" });
    top.resource({ uri: "n://1", handler: () => "top" });
    const middle = createServer({ name: "middle", version: "1" });
    const leaf = createServer({ name: "leaf", version: "1" });
    leaf.resource({ uri: "n://1", handler: () => "leaf" });
    middle.mount("leaf", leaf);
    expect(definitionError(() => top.mount("middle", middle)).message).toBe(
      'Resource "n://1" is served by both this server and server "middle" (mounted at "middle"); give one another URI',
    );
    const wide = createServer({ name: "wide", version: "1" });
    const deep = createServer({ name: "deep", version: "1" });
    deep.tool({ name: "t".repeat(40), description: "long", handler: () => 1 });
    wide.mount("a".repeat(20), deep);
    expect(
      definitionError(() => createServer({ name: "x", version: "1" }).mount("b".repeat(10), wide)).message,
    ).toContain("is over 64 characters");
    const later = createServer({ name: "later", version: "1" });
    createServer({ name: "y", version: "1" }).mount("p".repeat(30), later);
    expect(
      definitionError(() => later.tool({ name: "q".repeat(40), description: "long", handler: () => 1 })).message,
    ).toContain("is over 64 characters as this server lists it");
  });

  it("renaming a parent's tool into a module's namespace is refused like registering it", () => {
    const app = createServer({ name: "app", version: "1" }).mount("m", github());
    const own = app.tool({ name: "mine", description: "Mine", handler: () => 1 });
    expect(definitionError(() => own.update({ name: "m.create_issue" })).message).toContain("would shadow");
    expect(own.key).toBe("mine");
  });
});

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

  it("a middleware checking operation.name refuses a tool by the module's own name", async () => {
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
