import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { RequestContext } from "../context/context.js";
import { MetaKey } from "../protocol/versions.js";
import type { Server } from "../server/servable.js";
import { createServer } from "../server/server.js";
import { createTestClient } from "../testing/client.js";
import { rpcError } from "../testing/expect-errors.test-util.js";
import { McpError } from "../wire/errors.js";
import type { Middleware, Operation } from "./compose.js";

function server(): Server {
  const s = createServer({ name: "mw", version: "1" });
  s.tool({ name: "add", description: "Add", input: { a: z.number(), b: z.number() }, handler: ({ a, b }) => a + b });
  s.tool({ name: "secret", description: "Secret", handler: () => "s3cret" });
  s.resource({ uri: "docs://readme", handler: () => "read me" });
  s.prompt({
    name: "brief",
    description: "Brief",
    args: { topic: z.string() },
    complete: { topic: () => ["a"] },
    handler: ({ topic }) => topic,
  });
  return s;
}

describe.each(["2025-11-25", "2026-07-28"] as const)("server.use in %s", (protocolVersion) => {
  it("sees every operation kind with its target and arguments, before and after, outermost first", async () => {
    const s = server();
    const trail: string[] = [];
    const seen: Operation[] = [];
    s.use(
      async (operation, next) => {
        seen.push(operation);
        trail.push(`outer>${operation.method}`);
        const result = await next();
        trail.push(`outer<${operation.method}`);
        return result;
      },
      (operation, next) => {
        trail.push(`inner ${operation.kind}`);
        return next();
      },
    );
    const client = await createTestClient(s, { protocolVersion });
    await client.callTool("add", { a: 1, b: 2 });
    await client.readResource("docs://readme");
    await client.getPrompt("brief", { topic: "x" });
    await client.complete({ type: "ref/prompt", name: "brief" }, { name: "topic", value: "" });
    await client.listTools();
    expect(trail.slice(0, 3)).toEqual(["outer>tools/call", "inner call", "outer<tools/call"]);
    expect(seen.map((op) => [op.method, op.kind, op.name ?? op.uri])).toEqual([
      ["tools/call", "call", "add"],
      ["resources/read", "read", "docs://readme"],
      ["prompts/get", "get", "brief"],
      ["completion/complete", "complete", undefined],
      ["tools/list", "list", undefined],
    ]);
    expect(seen[0]?.arguments).toEqual({ a: 1, b: 2 });
    expect(seen[0]?.ctx.protocolVersion).toBe(protocolVersion);
  });

  it("replaces a result, filters a list, and refuses with an McpError that reaches the client as itself", async () => {
    const s = server();
    s.use((operation, next) => {
      if (operation.name === "secret") throw new McpError(-32001, "Not today");
      if (operation.method === "tools/list") {
        return Promise.resolve(next()).then((result) => ({
          ...result,
          tools: (result.tools as { name: string }[]).filter((tool) => tool.name !== "secret"),
        }));
      }
      if (operation.name === "add") return { content: [{ type: "text", text: "replaced" }], isError: false };
      return next();
    });
    const client = await createTestClient(s, { protocolVersion });
    expect((await client.listTools()).map((tool) => tool.name)).toEqual(["add"]);
    expect(await client.callTool("add", { a: 1, b: 2 })).toMatchObject({ content: [{ text: "replaced" }] });
    const refused = await rpcError(client.callTool("secret"));
    expect(refused).toMatchObject({ code: -32001, message: "Not today" });
  });

  it("a middleware's own crash is -32603, the stack stays on the server", async () => {
    const s = server();
    s.use(() => {
      throw new TypeError("middleware bug");
    });
    const client = await createTestClient(s, { protocolVersion });
    expect((await rpcError(client.callTool("add", { a: 1, b: 2 }))).message).toBe("Internal error");
  });

  it("does not run for discovery, ping or initialize", async () => {
    const s = server();
    const methods: string[] = [];
    s.use((operation, next) => {
      methods.push(operation.method);
      return next();
    });
    const client = await createTestClient(s, { protocolVersion });
    if (protocolVersion === "2025-11-25") await client.request("ping");
    expect(methods).toEqual([]);
  });
});

describe("the fast path", () => {
  const meta = { [MetaKey.protocolVersion]: "2026-07-28", [MetaKey.clientCapabilities]: {} };
  const line = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "add", arguments: { a: 1, b: 2 }, _meta: meta },
  });

  it("without middleware, and with a synchronous pass-through one, a synchronous tool answers without a promise", () => {
    for (const middleware of [[], [((_, next) => next()) as Middleware]]) {
      const s = server();
      s.use(...middleware);
      const lines: string[] = [];
      const connection = s.connect({ send: (text) => lines.push(text) });
      expect(connection.receive(line)).toBeUndefined();
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain('"text":"3"');
    }
  });
});

describe("middleware mistakes", () => {
  it("next() called twice runs the operation once and fails clearly; a middleware that returns nothing too", async () => {
    let runs = 0;
    const twice = createServer({ name: "twice", version: "1" });
    twice.tool({ name: "charge", description: "charge", handler: () => ++runs });
    twice.use(async (_operation, next) => {
      await next();
      return next();
    });
    const logged: string[] = [];
    twice.setLogger((entry) => logged.push(entry.message));
    const client = await createTestClient(twice);
    expect((await rpcError(client.callTool("charge"))).message).toBe("Internal error");
    expect(runs).toBe(1);
    expect(logged.join("\n")).toContain("next() twice");

    const silent = createServer({ name: "silent", version: "1" });
    silent.tool({ name: "t", description: "t", handler: () => 1 });
    silent.use((() => undefined) as unknown as Middleware);
    const said: string[] = [];
    silent.setLogger((entry) => said.push(entry.message));
    expect((await rpcError((await createTestClient(silent)).callTool("t"))).message).toBe("Internal error");
    expect(said.join("\n")).toContain("return next()");
  });
});

// A definition's own middleware (`use`): around that tool, resource, template or prompt alone, once it is the
// caller's, whatever it is named now, alone or in a mounted module.

const isAdmin = (ctx: RequestContext) => ctx.auth?.scopes.includes("admin") === true;

function desk(trail: string[]): Server {
  const record: Middleware = (operation, next) => {
    trail.push(`${operation.method} ${operation.name ?? operation.uri ?? JSON.stringify(operation.params.ref)}`);
    return next();
  };
  const adminOnly: Middleware = (operation, next) => {
    if (!isAdmin(operation.ctx)) throw new McpError(-32001, "for admins");
    return next();
  };
  const s = createServer({ name: "desk", version: "1" });
  s.tool({ name: "wipe", description: "Wipe", use: [record, adminOnly], handler: () => "wiped" });
  s.tool({ name: "open", description: "Anyone", handler: () => "open" });
  s.tool({ name: "hidden", description: "Admins", guard: isAdmin, use: [record], handler: () => "hidden" });
  s.resource({ uri: "desk://ledger", use: [record, adminOnly], handler: () => "ledger" });
  s.resource({
    uriTemplate: "desk://files/{id}",
    use: [record, adminOnly],
    complete: { id: () => ["1"] },
    handler: ({ id }) => `file ${id}`,
  });
  s.prompt({
    name: "brief",
    description: "Brief",
    args: { topic: z.string() },
    complete: { topic: () => ["a"] },
    use: [record, adminOnly],
    handler: ({ topic }) => topic,
  });
  return s;
}

const LAYOUTS = [
  ["alone", (s: Server) => s, ""],
  ["mounted", (s: Server) => createServer({ name: "app", version: "1" }).mount("mod", s), "mod."],
] as const;

describe.each(
  LAYOUTS.flatMap(([layout, wrap, prefix]) =>
    (["2025-11-25", "2026-07-28"] as const).map((protocolVersion) => ({ layout, wrap, prefix, protocolVersion })),
  ),
)("a definition's own middleware ($layout, $protocolVersion)", ({ wrap, prefix, protocolVersion }) => {
  const connect = (s: Server, scopes: string[] = []) =>
    createTestClient(wrap(s), { protocolVersion, auth: { subject: "ana", scopes } });

  it("runs around its own operations only, seeing them by the names the module knows", async () => {
    const trail: string[] = [];
    const c = await connect(desk(trail));
    await expect(c.callTool(`${prefix}wipe`)).rejects.toMatchObject({ code: -32001 });
    await expect(c.readResource("desk://ledger")).rejects.toMatchObject({ code: -32001 });
    await expect(c.readResource("desk://files/7")).rejects.toMatchObject({ code: -32001 });
    await expect(c.getPrompt(`${prefix}brief`, { topic: "x" })).rejects.toMatchObject({ code: -32001 });
    const ref = { type: "ref/prompt" as const, name: `${prefix}brief` };
    await expect(c.complete(ref, { name: "topic", value: "" })).rejects.toMatchObject({ code: -32001 });
    expect(await c.callTool(`${prefix}open`)).toMatchObject({ content: [{ text: "open" }] });
    await c.listTools();
    expect(trail).toEqual([
      "tools/call wipe",
      "resources/read desk://ledger",
      "resources/read desk://files/7",
      "prompts/get brief",
      'completion/complete {"type":"ref/prompt","name":"brief"}',
    ]);
    const admin = await connect(desk([]), ["admin"]);
    expect(await admin.callTool(`${prefix}wipe`)).toMatchObject({ content: [{ text: "wiped" }] });
    expect(await admin.readResource("desk://files/7")).toMatchObject({ contents: [{ text: "file 7" }] });
  });

  it("never runs for a caller the guard refuses; follows a rename; goes with a removal", async () => {
    const trail: string[] = [];
    const s = desk(trail);
    const c = await connect(s);
    await expect(c.callTool(`${prefix}hidden`)).rejects.toThrow(`Unknown tool: ${prefix}hidden`);
    expect(trail).toEqual([]);
    s.registered("tool", "wipe")?.update({ name: "wipe_all" });
    await expect(c.callTool(`${prefix}wipe_all`)).rejects.toMatchObject({ code: -32001 });
    s.registered("tool", "wipe_all")?.remove();
    s.tool({ name: "wipe_all", description: "Anyone's now", handler: () => "anyone's" });
    expect(await c.callTool(`${prefix}wipe_all`)).toMatchObject({ content: [{ text: "anyone's" }] });
  });
});

it("use that is not an array of middleware functions is refused at registration", () => {
  const s = createServer({ name: "bad", version: "1" });
  const bad = { name: "t", description: "T", use: ["nope"], handler: () => 1 } as never;
  expect(() => s.tool(bad)).toThrow('Tool "t" use must be an array of middleware functions');
});
