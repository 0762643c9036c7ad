import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { AuthInfo, RequestContext } from "../context/context.js";
import { MetaKey } from "../protocol/versions.js";
import { createServer } from "../server/server.js";
import { createTestClient } from "../testing/client.js";
import { rpcError } from "../testing/expect-errors.test-util.js";
import { ErrorCode } from "../wire/json-rpc.js";

const admin: AuthInfo = { subject: "ada", scopes: ["admin"] };
const reader: AuthInfo = { subject: "rob", scopes: ["read"] };
const isAdmin = (ctx: RequestContext) => ctx.auth?.scopes.includes("admin") === true;

function server() {
  const s = createServer({ name: "guards", version: "1" });
  s.tool({ name: "read", description: "Read", handler: () => "read" });
  s.tool({ name: "wipe", description: "Wipe", guard: isAdmin, handler: () => "wiped" });
  s.tool({ name: "zzz", description: "Last", handler: () => "z" });
  s.resource({ uri: "admin://log", guard: isAdmin, handler: () => "the log" });
  s.resource({
    uriTemplate: "user://{id}",
    guard: isAdmin,
    list: () => [{ uri: "user://1", name: "one" }],
    handler: ({ id }) => String(id),
  });
  s.prompt({
    name: "audit",
    description: "Audit",
    guard: isAdmin,
    args: { scope: z.string() },
    complete: { scope: () => ["all"] },
    handler: () => "x",
  });
  return s;
}

describe.each(["2025-11-25", "2026-07-28"] as const)("guards in %s", (protocolVersion) => {
  it("a refused caller does not see guarded items; an allowed one does, in registration order", async () => {
    const asReader = await createTestClient(server(), { protocolVersion, auth: reader });
    expect((await asReader.listTools()).map((tool) => tool.name)).toEqual(["read", "zzz"]);
    expect(await asReader.listResources()).toEqual([]);
    expect(await asReader.listResourceTemplates()).toEqual([]);
    expect(await asReader.listPrompts()).toEqual([]);
    const asAdmin = await createTestClient(server(), { protocolVersion, auth: admin });
    expect((await asAdmin.listTools()).map((tool) => tool.name)).toEqual(["read", "wipe", "zzz"]);
    expect((await asAdmin.listResources()).map((resource) => resource.uri)).toEqual(["admin://log", "user://1"]);
  });

  it("calling what the guard refuses answers exactly as for what does not exist", async () => {
    const s = server();
    const asReader = await createTestClient(s, { protocolVersion, auth: reader });
    const hidden = await rpcError(asReader.callTool("wipe"));
    const missing = await rpcError(asReader.callTool("nope"));
    expect({ code: hidden.code, message: hidden.message.replace("wipe", "X") }).toEqual({
      code: missing.code,
      message: missing.message.replace("nope", "X"),
    });
    expect((await rpcError(asReader.readResource("admin://log"))).message).toBe("Resource not found: admin://log");
    expect((await rpcError(asReader.readResource("user://1"))).message).toBe("Resource not found: user://1");
    expect((await rpcError(asReader.getPrompt("audit", { scope: "x" }))).code).toBe(ErrorCode.InvalidParams);
    expect(
      (await rpcError(asReader.complete({ type: "ref/prompt", name: "audit" }, { name: "scope", value: "" }))).code,
    ).toBe(ErrorCode.InvalidParams);
    const asAdmin = await createTestClient(s, { protocolVersion, auth: admin });
    expect(await asAdmin.callTool("wipe")).toMatchObject({ content: [{ text: "wiped" }] });
    expect(await asAdmin.readResource("user://7")).toMatchObject({ contents: [{ text: "7" }] });
  });
});

describe.each(["2025-11-25", "2026-07-28"] as const)("a guard that throws (%s)", (protocolVersion) => {
  it("refuses: its item answers exactly as one that does not exist, by every route; the error is logged", async () => {
    const logged: string[] = [];
    const s = createServer({ name: "crashy", version: "1", logger: (entry) => logged.push(entry.message) });
    // A guard written for authenticated callers only: it throws for one without auth.
    const guard = (ctx: RequestContext) => (ctx.auth as AuthInfo).scopes.includes("admin");
    s.tool({ name: "wipe", description: "Wipe", guard, handler: () => "wiped" });
    s.tool({ name: "open", description: "Open", handler: () => "open" });
    s.resource({ uri: "admin://log", guard, handler: () => "the log" });
    s.resource({ uriTemplate: "user://{id}", guard, complete: { id: () => ["1"] }, handler: () => "u" });
    s.prompt({
      name: "audit",
      description: "Audit",
      guard,
      complete: { scope: () => ["all"] },
      args: { scope: z.string() },
      handler: () => "x",
    });
    const c = await createTestClient(s, { protocolVersion });
    expect((await c.listTools()).map((tool) => tool.name)).toEqual(["open"]);
    expect(await c.listResources()).toEqual([]);
    expect(await c.listPrompts()).toEqual([]);
    const same = async (hidden: Promise<unknown>, missing: Promise<unknown>, name: string, other: string) => {
      const [a, b] = [await rpcError(hidden), await rpcError(missing)];
      expect({ code: a.code, message: a.message.replace(name, "X") }).toEqual({
        code: b.code,
        message: b.message.replace(other, "X"),
      });
    };
    await same(c.callTool("wipe"), c.callTool("nope"), "wipe", "nope");
    await same(c.readResource("admin://log"), c.readResource("admin://zzz"), "admin://log", "admin://zzz");
    await same(c.readResource("user://1"), c.readResource("zzzz://1"), "user://1", "zzzz://1");
    await same(c.getPrompt("audit", { scope: "x" }), c.getPrompt("zzzzz", { scope: "x" }), "audit", "zzzzz");
    const ref = (name: string) => ({ type: "ref/prompt" as const, name });
    await same(
      c.complete(ref("audit"), { name: "scope", value: "" }),
      c.complete(ref("zzzzz"), { name: "scope", value: "" }),
      "audit",
      "zzzzz",
    );
    expect(logged.length).toBeGreaterThan(0);
    expect(logged.every((message) => message.startsWith("a guard threw, so it refused: TypeError"))).toBe(true);
  });
});

it("2026-07-28: a list that depends on the caller is cacheScope private; one that does not stays public", async () => {
  const client = await createTestClient(server(), { auth: reader });
  expect(await client.request("tools/list")).toMatchObject({ cacheScope: "private" });
  const plain = createServer({ name: "plain", version: "1" });
  plain.tool({ name: "t", description: "t", handler: () => 1 });
  plain.prompt({ name: "p", description: "p", handler: () => "p" });
  const open = await createTestClient(plain);
  expect(await open.request("tools/list")).toMatchObject({ cacheScope: "public" });
  expect(await (await createTestClient(server())).request("prompts/list")).toMatchObject({ cacheScope: "private" });
});

it("2026-07-28: resources/list is cacheScope private when a template lists resources: its list sees the caller", async () => {
  const s = createServer({ name: "mine", version: "1" });
  s.resource({ uri: "docs://readme", handler: () => "read me" });
  const open = await createTestClient(s);
  expect(await open.request("resources/list")).toMatchObject({ cacheScope: "public" });
  s.resource({
    uriTemplate: "mine://{id}",
    list: (ctx) => [{ uri: `mine://${ctx.auth?.subject}`, name: "yours" }],
    handler: ({ id }) => String(id),
  });
  for (const app of [s, createServer({ name: "app", version: "1" }).mount("mod", s)]) {
    const asAda = await createTestClient(app, { auth: { subject: "ada", scopes: [] } });
    expect(await asAda.request("resources/list")).toMatchObject({
      resources: [{ uri: "docs://readme" }, { uri: "mine://ada" }],
      cacheScope: "private",
    });
  }
});

it("with pagination, pages are made from what the caller may see", async () => {
  const s = createServer({ name: "paged", version: "1", pageSize: 2 });
  for (const name of ["a", "b", "c", "d"])
    s.tool({ name, description: name, guard: (ctx) => name !== "b" || isAdmin(ctx), handler: () => name });
  const client = await createTestClient(s, { auth: reader });
  const first = await client.request("tools/list");
  const second = await client.request("tools/list", { cursor: first.nextCursor });
  expect(
    [...(first.tools as { name: string }[]), ...(second.tools as { name: string }[])].map((tool) => tool.name),
  ).toEqual(["a", "c", "d"]);
});

describe.each(["2025-11-25", "2026-07-28"] as const)("guards and subscriptions in %s", (protocolVersion) => {
  it("an update of a guarded resource reaches only subscribers who may read it", async () => {
    const s = server();
    const asReader = await createTestClient(s, { protocolVersion, auth: reader });
    const asAdmin = await createTestClient(s, { protocolVersion, auth: admin });
    const streams =
      protocolVersion === "2026-07-28"
        ? [
            await asReader.listen({ resourceSubscriptions: ["admin://log"] }),
            await asAdmin.listen({ resourceSubscriptions: ["admin://log"] }),
          ]
        : undefined;
    if (!streams) {
      await asReader.request("resources/subscribe", { uri: "admin://log" });
      await asAdmin.request("resources/subscribe", { uri: "admin://log" });
    }
    s.resourceUpdated("admin://log");
    const updates = (client: typeof asReader) =>
      client.notifications.filter((n) => n.method === "notifications/resources/updated").length;
    expect(updates(asReader)).toBe(0);
    expect(updates(asAdmin)).toBe(1);
  });
});

it("2026-07-28: a list served through middleware (which may filter per caller) is cacheScope private", async () => {
  const plain = createServer({ name: "plain", version: "1" });
  plain.tool({ name: "t", description: "t", handler: () => 1 });
  plain.use((_operation, next) => next());
  expect(await (await createTestClient(plain)).request("tools/list")).toMatchObject({ cacheScope: "private" });
});

// What a refused caller sends for a hidden item and for one that does not exist, and the reply line to each with
// the item's name swapped out: the two must be the same text.
describe.each(["2025-11-25", "2026-07-28"] as const)(
  "hidden answers as missing, byte for byte (%s)",
  (protocolVersion) => {
    const layouts: [string, () => ReturnType<typeof createServer>, string][] = [
      ["served alone", server, ""],
      ["in a mounted module", () => createServer({ name: "app", version: "1" }).mount("mod", server()), "mod."],
      [
        "in a module of a module",
        () => {
          const middle = createServer({ name: "middle", version: "1" }).mount("mod", server());
          middle.use((_operation, next) => next());
          return createServer({ name: "app", version: "1" }).mount("outer", middle);
        },
        "outer.mod.",
      ],
    ];
    const meta = protocolVersion === "2026-07-28" ? { _meta: { [MetaKey.protocolVersion]: protocolVersion } } : {};
    let id = 0;
    const line = (method: string, params: Record<string, unknown>) =>
      JSON.stringify({ jsonrpc: "2.0", id: ++id, method, params: { ...params, ...meta } });

    it.each(layouts)("%s", async (_layout, make, prefix) => {
      const asReader = await createTestClient(make(), { protocolVersion, auth: reader });
      const pairs: [string, (target: string) => Record<string, unknown>, string, string][] = [
        ["tools/call", (name) => ({ name, arguments: {} }), `${prefix}wipe`, `${prefix}nope`],
        ["prompts/get", (name) => ({ name, arguments: { scope: "x" } }), `${prefix}audit`, `${prefix}nope`],
        [
          "completion/complete",
          (name) => ({ ref: { type: "ref/prompt", name }, argument: { name: "scope", value: "" } }),
          `${prefix}audit`,
          `${prefix}nope`,
        ],
        [
          "completion/complete",
          (uri) => ({ ref: { type: "ref/resource", uri }, argument: { name: "id", value: "" } }),
          "user://{id}",
          "nope://{id}",
        ],
        ["resources/read", (uri) => ({ uri }), "admin://log", "nope://log"],
        ["resources/read", (uri) => ({ uri }), "user://1", "nope://1"],
      ];
      if (protocolVersion === "2025-11-25")
        pairs.push(["resources/subscribe", (uri) => ({ uri }), "admin://log", "nope://log"]);
      for (const [method, params, hidden, missing] of pairs) {
        // The same id for both: the replies differ in nothing but the name.
        const hiddenReply = await asReader.send(line(method, params(hidden)));
        id--;
        const missingReply = await asReader.send(line(method, params(missing)));
        expect(missingReply).toMatch(/^\{"jsonrpc":"2\.0","id":\d+,"(result|error)"/);
        expect(hiddenReply?.split(hidden).join("X"), `${method} ${hidden}`).toBe(
          missingReply?.split(missing).join("X"),
        );
      }
      if (protocolVersion === "2026-07-28") {
        const hidden = await asReader.listen({ resourceSubscriptions: ["admin://log"] });
        const missing = await asReader.listen({ resourceSubscriptions: ["nope://log"] });
        expect(JSON.stringify(hidden.acknowledged).replace("admin://log", "X")).toBe(
          JSON.stringify(missing.acknowledged).replace("nope://log", "X"),
        );
      }
    });
  },
);
