import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { Delivery } from "../connection/outlet.js";
import type { AuthInfo } from "../context/context.js";
import type { LogEntry } from "../context/logger.js";
import { httpStatusOf } from "../protocol/http-status.js";
import { MetaKey } from "../protocol/versions.js";
import type { Server } from "../server/servable.js";
import { createServer } from "../server/server.js";
import { declaredScopes, serverScopes } from "../server/server-access.js";
import { createTestClient } from "../testing/client.js";
import { definitionError, rpcError } from "../testing/expect-errors.test-util.js";
import { ErrorCode } from "../wire/json-rpc.js";

// Scopes per operation (docs/decisions/0008-scopes.md): who holds which, the refusal before anything of the item runs,
// what lists show, the hierarchy, modules, and what a transport is told.

const writer: AuthInfo = { subject: "wes", scopes: ["files:write"] };
const reader: AuthInfo = { subject: "rob", scopes: ["files:read"] };
const admin: AuthInfo = { subject: "ada", scopes: ["files:admin"] };

function files(ran: string[] = [], options: Parameters<typeof createServer>[0] = { name: "files", version: "1" }) {
  const s = createServer(options);
  s.tool({
    name: "write",
    description: "Write a file",
    scopes: ["files:write"],
    input: { path: z.string().min(1) },
    handler: ({ path }) => {
      ran.push(path);
      return "written";
    },
  });
  s.tool({ name: "open", description: "Anyone", handler: () => "open" });
  s.resource({ uri: "files://secret", scopes: ["files:read"], handler: () => "secret" });
  s.resource({
    uriTemplate: "files://{name}",
    scopes: ["files:read"],
    complete: { name: () => ["a", "b"] },
    handler: ({ name }) => `file ${name}`,
  });
  s.prompt({
    name: "review",
    description: "Review",
    scopes: ["files:read", "review"],
    args: { topic: z.string() },
    complete: { topic: () => ["x"] },
    handler: ({ topic }) => `review ${topic}`,
  });
  return s;
}

const META = {
  [MetaKey.protocolVersion]: "2026-07-28",
  [MetaKey.clientCapabilities]: {},
  [MetaKey.clientInfo]: { name: "c", version: "1" },
};

const needs = (scopes: string[]) => ({
  code: ErrorCode.InsufficientScope,
  message: `Insufficient scope: this operation needs ${scopes.join(" ")}`,
  data: { scopes },
});

describe.each(["2025-11-25", "2026-07-28"] as const)("scopes in %s", (protocolVersion) => {
  it("a principal without the scope is refused on every primitive, naming every scope needed", async () => {
    const client = await createTestClient(files(), { protocolVersion, auth: { subject: "x", scopes: ["review"] } });
    expect(await rpcError(client.callTool("write", { path: "a" }))).toMatchObject(needs(["files:write"]));
    expect(await rpcError(client.readResource("files://secret"))).toMatchObject(needs(["files:read"]));
    expect(await rpcError(client.readResource("files://notes"))).toMatchObject(needs(["files:read"]));
    // Every scope, not only the missing one (the client already holds "review").
    expect(await rpcError(client.getPrompt("review", { topic: "t" }))).toMatchObject(needs(["files:read", "review"]));
    const prompt = client.complete({ type: "ref/prompt", name: "review" }, { name: "topic", value: "" });
    expect(await rpcError(prompt)).toMatchObject(needs(["files:read", "review"]));
    const template = client.complete({ type: "ref/resource", uri: "files://{name}" }, { name: "name", value: "" });
    expect(await rpcError(template)).toMatchObject(needs(["files:read"]));
    expect(await client.callTool("open")).toMatchObject({ content: [{ text: "open" }] });
  });

  it("the check comes before the arguments are validated and before the handler", async () => {
    const ran: string[] = [];
    const client = await createTestClient(files(ran), { protocolVersion, auth: reader });
    expect(await rpcError(client.callTool("write", { path: "" }))).toMatchObject(needs(["files:write"]));
    expect(ran).toEqual([]);
    const allowed = await createTestClient(files(ran), { protocolVersion, auth: writer });
    expect(await allowed.callTool("write", { path: "a" })).toMatchObject({ content: [{ text: "written" }] });
    expect(ran).toEqual(["a"]);
  });

  it("a scoped item is listed to a caller that lacks its scopes (it may step up); a guard still hides", async () => {
    const s = files();
    s.tool({ name: "wipe", description: "Wipe", scopes: ["files:admin"], guard: () => false, handler: () => "x" });
    const client = await createTestClient(s, { protocolVersion, auth: { subject: "n", scopes: [] } });
    expect((await client.listTools()).map((tool) => tool.name)).toEqual(["write", "open"]);
    expect((await client.listResources()).map((resource) => resource.uri)).toEqual(["files://secret"]);
    expect((await client.listResourceTemplates()).map((template) => template.uriTemplate)).toEqual(["files://{name}"]);
    expect((await client.listPrompts()).map((prompt) => prompt.name)).toEqual(["review"]);
    // Nothing of the scopes is listed: no precedent in the spec or the SDKs for carrying them in `_meta`.
    expect(JSON.stringify(await client.listTools())).not.toContain("files:write");
    // What a guard hides stays unknown, scopes or not.
    expect(await rpcError(client.callTool("wipe"))).toMatchObject({ code: ErrorCode.InvalidParams });
  });

  it("a broad scope satisfies those it implies, transitively, and a cycle is harmless", async () => {
    const implied = {
      "files:admin": ["files:write", "files:all"],
      "files:all": ["files:read", "files:admin"],
    };
    const s = files([], { name: "files", version: "1", impliedScopes: implied });
    const client = await createTestClient(s, { protocolVersion, auth: admin });
    expect(await client.callTool("write", { path: "a" })).toMatchObject({ content: [{ text: "written" }] });
    expect(await client.readResource("files://secret")).toMatchObject({ contents: [{ text: "secret" }] });
    // A narrow scope implies nothing broader.
    const narrow = await createTestClient(s, { protocolVersion, auth: reader });
    expect(await rpcError(narrow.callTool("write", { path: "a" }))).toMatchObject(needs(["files:write"]));
  });

  it("the test client without auth holds every scope; with auth exactly its principal's", async () => {
    const local = await createTestClient(files(), { protocolVersion });
    expect(await local.callTool("write", { path: "a" })).toMatchObject({ content: [{ text: "written" }] });
    expect(await local.getPrompt("review", { topic: "t" })).toMatchObject({ messages: [{}] });
    const signedIn = await createTestClient(files(), { protocolVersion, auth: writer });
    expect(await signedIn.callTool("write", { path: "a" })).toMatchObject({ content: [{ text: "written" }] });
    expect(await rpcError(signedIn.readResource("files://secret"))).toMatchObject(needs(["files:read"]));
  });

  it("server-wide scopes apply to every request, lists included, and join each operation's", async () => {
    const s = files([], { name: "files", version: "1", scopes: ["mcp"] });
    const without = await createTestClient(s, { protocolVersion, auth: { subject: "m", scopes: ["mcp"] } });
    expect((await without.listTools()).length).toBe(2);
    expect(await rpcError(without.callTool("write", { path: "a" }))).toMatchObject(needs(["mcp", "files:write"]));
    const all = await createTestClient(s, { protocolVersion, auth: { subject: "m", scopes: ["mcp", "files:write"] } });
    expect(await all.callTool("write", { path: "a" })).toMatchObject({ content: [{ text: "written" }] });
    // Without the server's own scope, nothing is served: not even the handshake or discovery.
    const refused = createTestClient(s, { protocolVersion, auth: writer });
    expect(await rpcError(refused)).toMatchObject(needs(["mcp"]));
  });

  it("a mounted module's operations keep their own scopes and its server's, under the parent's", async () => {
    const module = files([], { name: "mod", version: "1", scopes: ["mod"], impliedScopes: { "mod:all": ["mod"] } });
    const app = createServer({ name: "app", version: "1", scopes: ["app"] }).mount("fs", module);
    app.tool({ name: "own", description: "Own", handler: () => "own" });
    const caller = (scopes: string[]) => createTestClient(app, { protocolVersion, auth: { subject: "c", scopes } });
    const some = await caller(["app", "files:write"]);
    expect(await rpcError(some.callTool("fs.write", { path: "a" }))).toMatchObject(
      needs(["app", "mod", "files:write"]),
    );
    expect(await rpcError(some.readResource("files://secret"))).toMatchObject(needs(["app", "mod", "files:read"]));
    expect(await some.callTool("own")).toMatchObject({ content: [{ text: "own" }] });
    // The module's hierarchy holds mounted: its broad scope implies its server's own.
    const full = await caller(["app", "mod:all", "files:write"]);
    expect(await full.callTool("fs.write", { path: "a" })).toMatchObject({ content: [{ text: "written" }] });
  });
});

describe("scopes", () => {
  it("are checked at registration: RFC 6749 scope tokens in an array", () => {
    const s = createServer({ name: "s", version: "1" });
    const handler = () => "x";
    expect(definitionError(() => s.tool({ name: "a", description: "A", scopes: ["two words"], handler })).message).toBe(
      `Tool "a" scope "two words" is invalid: an OAuth scope (RFC 6749) is one or more printable ASCII characters other than space, '"' and '\\'`,
    );
    definitionError(() => s.tool({ name: "b", description: "B", scopes: [""], handler }));
    definitionError(() => s.tool({ name: "c", description: "C", scopes: ['a"b'], handler }));
    definitionError(() => s.tool({ name: "d", description: "D", scopes: "files:write" as never, handler }));
    definitionError(() => s.resource({ uri: "x://a", scopes: ["é"], handler }));
    definitionError(() => s.resource({ uriTemplate: "x://{a}", scopes: [1 as never], handler }));
    definitionError(() => s.prompt({ name: "p", scopes: ["a\\b"], handler }));
    definitionError(() => createServer({ name: "s", version: "1", scopes: ["a b"] }));
    definitionError(() => createServer({ name: "s", version: "1", impliedScopes: { "a b": ["c"] } }));
    definitionError(() => createServer({ name: "s", version: "1", impliedScopes: { a: "c" as never } }));
    expect(
      s.tool({ name: "ok", description: "Ok", scopes: ["files:write", "a!#$%&'()*+,-./~"], handler }),
    ).toBeDefined();
  });

  it("the transport is told the scopes of a refusal in its delivery", async () => {
    const deliveries: Delivery[] = [];
    const connection = files().connect({ send: (_line, delivery) => void deliveries.push(delivery) });
    const call = { name: "write", arguments: { path: "a" }, _meta: META };
    await connection.receive(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: call }), {
      auth: reader,
    });
    expect(deliveries).toEqual([
      { kind: "response", relatedTo: 1, error: ErrorCode.InsufficientScope, scopes: ["files:write"] },
    ]);
    // 403 in both eras (RFC 6750 §3.1), whatever else the era answers with 200.
    expect(httpStatusOf(ErrorCode.InsufficientScope, "stateless")).toBe(403);
    expect(httpStatusOf(ErrorCode.InsufficientScope, "handshake")).toBe(403);
    expect(httpStatusOf(ErrorCode.InvalidParams, "handshake")).toBe(200);
  });

  it("a connection without a principal holds none unless the transport vouches for its peer; a warning says so once", async () => {
    const log: LogEntry[] = [];
    const s = files([], { name: "files", version: "1", logger: (entry) => void log.push(entry) });
    const lines: string[] = [];
    const line = (id: number) =>
      JSON.stringify({
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: { name: "write", arguments: { path: "a" }, _meta: META },
      });
    const anonymous = s.connect({ send: (reply) => void lines.push(reply) });
    await anonymous.receive(line(1));
    await anonymous.receive(line(2));
    expect(lines.map((reply) => JSON.parse(reply).error?.code)).toEqual([
      ErrorCode.InsufficientScope,
      ErrorCode.InsufficientScope,
    ]);
    expect(log.filter((entry) => entry.method === "(scopes)")).toEqual([
      expect.objectContaining({
        level: "warning",
        message: expect.stringMatching(/^tool "write" needs the scopes files:write, .*authenticate option/),
      }),
    ]);
    const local = s.connect({ send: (reply) => void lines.push(reply), holdsEveryScope: true });
    await local.receive(line(3));
    expect(JSON.parse(lines[2] ?? "{}").result).toMatchObject({ content: [{ text: "written" }] });
    // A principal decides, even where the peer is vouched for.
    const principal = s.connect({ send: (reply) => void lines.push(reply), holdsEveryScope: true, auth: reader });
    await principal.receive(line(4));
    expect(JSON.parse(lines[3] ?? "{}").error).toMatchObject(needs(["files:write"]));
  });

  it("declared scopes: the server's and each unguarded enabled item's, sorted, modules' included, live", () => {
    const s = files([], { name: "files", version: "1", scopes: ["mcp"] });
    s.tool({ name: "hidden", description: "H", scopes: ["secret:scope"], guard: () => true, handler: () => 1 });
    expect(serverScopes(s)).toEqual(["mcp"]);
    expect(declaredScopes(s)).toEqual(["files:read", "files:write", "mcp", "review"]);
    const later = s.tool({ name: "later", description: "L", scopes: ["a:later"], handler: () => 1 });
    expect(declaredScopes(s)).toEqual(["a:later", "files:read", "files:write", "mcp", "review"]);
    later.disable();
    expect(declaredScopes(s)).toEqual(["files:read", "files:write", "mcp", "review"]);
    const app: Server = createServer({ name: "app", version: "1" });
    expect(serverScopes(app)).toEqual([]);
    app.mount("m", createServer({ name: "m", version: "1", scopes: ["m:x"] }));
    expect(declaredScopes(app)).toEqual(["m:x"]);
  });

  it("a 2025-03-26 batch answers each refusal inside it, the batch's own delivery carrying no scopes", async () => {
    const deliveries: [string, Delivery][] = [];
    const connection = files().connect({ send: (line, delivery) => void deliveries.push([line, delivery]) });
    const init = { protocolVersion: "2025-03-26", capabilities: {}, clientInfo: { name: "c", version: "1" } };
    await connection.receive(JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: init }), {
      auth: reader,
    });
    await connection.receive(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }), { auth: reader });
    const call = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "write", arguments: { path: "a" } } };
    await connection.receive(JSON.stringify([call, { jsonrpc: "2.0", id: 2, method: "ping" }]), { auth: reader });
    const [line, delivery] = deliveries.at(-1) ?? ["", { kind: "notification" }];
    expect(delivery).toEqual({ kind: "response", tag: undefined });
    expect(JSON.parse(line)).toEqual([
      { jsonrpc: "2.0", id: 1, error: needs(["files:write"]) },
      { jsonrpc: "2.0", id: 2, result: {} },
    ]);
  });
});
