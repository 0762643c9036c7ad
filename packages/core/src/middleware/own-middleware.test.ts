import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { RequestContext } from "../context/context.js";
import type { Server } from "../server/servable.js";
import { createServer } from "../server/server.js";
import { createTestClient } from "../testing/client.js";
import { McpError } from "../wire/errors.js";
import type { Middleware } from "./compose.js";

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
