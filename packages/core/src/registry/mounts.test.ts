import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createServer } from "../server/server.js";
import { createTestClient } from "../testing/client.js";
import { definitionError, rpcError } from "../testing/expect-errors.test-util.js";
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
    definitionError(() => app.mount("git hub", github()));
    definitionError(() => app.mount("self", app));
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
    definitionError(() => top.mount("middle", middle));
    const wide = createServer({ name: "wide", version: "1" });
    const deep = createServer({ name: "deep", version: "1" });
    deep.tool({ name: "t".repeat(40), description: "long", handler: () => 1 });
    wide.mount("a".repeat(20), deep);
    expect(
      definitionError(() => createServer({ name: "x", version: "1" }).mount("b".repeat(10), wide)).message,
    ).toContain("is over 64 characters");
    const later = createServer({ name: "later", version: "1" });
    createServer({ name: "y", version: "1" }).mount("p".repeat(30), later);
    definitionError(() => later.tool({ name: "q".repeat(40), description: "long", handler: () => 1 }));
  });

  it("renaming a parent's tool into a module's namespace is refused like registering it", () => {
    const app = createServer({ name: "app", version: "1" }).mount("m", github());
    const own = app.tool({ name: "mine", description: "Mine", handler: () => 1 });
    expect(definitionError(() => own.update({ name: "m.create_issue" })).message).toContain("would shadow");
    expect(own.key).toBe("mine");
  });
});
