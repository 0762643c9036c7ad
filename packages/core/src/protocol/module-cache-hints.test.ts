import { describe, expect, it } from "vitest";
import type { Middleware } from "../middleware/compose.js";
import type { Server } from "../server/servable.js";
import { createServer } from "../server/server.js";
import { createTestClient } from "../testing/client.js";
import type { CacheHint } from "./cache-hints.js";

// 2026-07-28: what a mounted module serves carries a hint no wider than its own server's nor any server's it is
// mounted through (the shorter ttl; private if any says private), so mounting never widens who may reuse it.

const hint = (ttlMs: number, cacheScope: CacheHint["cacheScope"]): CacheHint => ({ ttlMs, cacheScope });
const PUBLIC_MINUTE = hint(60_000, "public");
const NOT_REUSED = hint(0, "private");

/** A server serving one of each kind, its names and URIs under `name`. */
function serving(name: string, cache?: Partial<Record<"discover" | "list" | "read", CacheHint>>): Server {
  const server = createServer({ name, version: "1", ...(cache ? { cache } : {}) });
  server.tool({ name: `${name}_tool`, description: "A tool", handler: () => "ok" });
  server.prompt({ name: `${name}_prompt`, handler: () => "p" });
  server.resource({ uri: `${name}://fixed`, handler: () => "fixed" });
  server.resource({ uriTemplate: `${name}://items/{id}`, handler: ({ id }) => String(id) });
  return server;
}

const read = async (server: Server, uri: string) => (await createTestClient(server)).request("resources/read", { uri });

const LISTS = ["tools/list", "prompts/list", "resources/list", "resources/templates/list"];

describe("2026-07-28 hints of what a mounted module serves", () => {
  it("a module's reads carry the narrower of its read hint and the parent's, template reads too", async () => {
    const app = serving("app", { read: PUBLIC_MINUTE });
    app.mount("m", serving("m", { read: hint(5_000, "private") }));
    expect(await read(app, "m://fixed")).toMatchObject({ ttlMs: 5_000, cacheScope: "private" });
    expect(await read(app, "m://items/1")).toMatchObject({ ttlMs: 5_000, cacheScope: "private" });
    expect(await read(app, "app://fixed")).toMatchObject(PUBLIC_MINUTE);
  });

  it("a module wider than its parent: the parent's narrower hint wins, for reads and lists", async () => {
    const app = serving("app", { read: hint(10_000, "private"), list: hint(10_000, "public") });
    app.mount("m", serving("m", { read: PUBLIC_MINUTE, list: PUBLIC_MINUTE }));
    expect(await read(app, "m://fixed")).toMatchObject({ ttlMs: 10_000, cacheScope: "private" });
    const client = await createTestClient(app);
    for (const method of LISTS) {
      expect(await client.request(method)).toMatchObject({ ttlMs: 10_000, cacheScope: "public" });
    }
  });

  it("a module that kept the default read hint keeps its reads private under a parent whose reads are public", async () => {
    const app = serving("app", { read: PUBLIC_MINUTE });
    app.mount("m", serving("m"));
    expect(await read(app, "m://fixed")).toMatchObject(NOT_REUSED);
  });

  it("two levels down: the narrowest of the three servers' hints, each on its own axis", async () => {
    const top = serving("top", { read: PUBLIC_MINUTE, list: PUBLIC_MINUTE });
    const middle = serving("middle", { read: hint(30_000, "public"), list: hint(30_000, "public") });
    const inner = serving("inner", { read: hint(120_000, "private"), list: hint(120_000, "private") });
    middle.mount("inner", inner);
    top.mount("middle", middle);
    expect(await read(top, "inner://fixed")).toMatchObject({ ttlMs: 30_000, cacheScope: "private" });
    expect(await read(top, "middle://fixed")).toMatchObject({ ttlMs: 30_000, cacheScope: "public" });
    expect(await read(top, "top://fixed")).toMatchObject(PUBLIC_MINUTE);
    // Served from the middle server, the inner one's reads carry the middle's and its own.
    expect(await read(middle, "inner://items/1")).toMatchObject({ ttlMs: 30_000, cacheScope: "private" });
    const client = await createTestClient(top);
    for (const method of LISTS) {
      expect(await client.request(method)).toMatchObject({ ttlMs: 30_000, cacheScope: "private" });
    }
  });

  it("a module mounted in a module after that one was mounted narrows every server above it", async () => {
    const app = serving("app");
    const middle = serving("middle");
    app.mount("middle", middle);
    const client = await createTestClient(app);
    expect(await client.request("tools/list")).toMatchObject(PUBLIC_MINUTE);
    middle.mount("inner", serving("inner", { list: hint(5_000, "private") }));
    expect(await client.request("tools/list")).toMatchObject({ ttlMs: 5_000, cacheScope: "private" });
  });

  it("a list carries the narrower of the parent's list hint and that of each module with items in it", async () => {
    const app = serving("app", { list: PUBLIC_MINUTE });
    const tools = createServer({ name: "t", version: "1", cache: { list: hint(5_000, "private") } });
    tools.tool({ name: "only", description: "A tool", handler: () => "ok" });
    app.mount("t", tools);
    const client = await createTestClient(app);
    expect(await client.request("tools/list")).toMatchObject({ ttlMs: 5_000, cacheScope: "private" });
    for (const method of ["prompts/list", "resources/list", "resources/templates/list"]) {
      expect(await client.request(method)).toMatchObject(PUBLIC_MINUTE);
    }
  });

  it("a resources/list a template computes is narrowed by the modules' lists, and a module's computed one by the parent's", async () => {
    const app = serving("app", { list: hint(10_000, "private") });
    app.resource({
      uriTemplate: "app://computed/{id}",
      list: () => [{ uri: "app://computed/1", name: "one" }],
      listCache: hint(5_000, "public"),
      handler: ({ id }) => String(id),
    });
    app.mount("m", serving("m", { list: hint(20_000, "private") }));
    expect(await (await createTestClient(app)).request("resources/list")).toMatchObject({
      ttlMs: 5_000,
      cacheScope: "private",
    });

    const parent = serving("parent", { list: hint(10_000, "private") });
    const module = serving("module");
    module.resource({
      uriTemplate: "module://computed/{id}",
      list: () => [{ uri: "module://computed/1", name: "one" }],
      listCache: PUBLIC_MINUTE,
      handler: ({ id }) => String(id),
    });
    parent.mount("module", module);
    expect(await (await createTestClient(parent)).request("resources/list")).toMatchObject({
      ttlMs: 10_000,
      cacheScope: "private",
    });
  });

  it("a middleware that answers a read with a result of its own does not widen the module's hint", async () => {
    const rebuild: Middleware = async (_operation, next) => {
      const { contents } = await next();
      return { contents };
    };
    const module = serving("m", { read: hint(5_000, "private") });
    module.use(rebuild);
    const app = serving("app", { read: PUBLIC_MINUTE });
    app.use(rebuild);
    app.mount("m", module);
    expect(await read(app, "m://fixed")).toMatchObject({ ttlMs: 5_000, cacheScope: "private" });
    expect(await read(app, "app://fixed")).toMatchObject(PUBLIC_MINUTE);
  });

  it("a parent's server/discover is its own: a module's discover hint describes the module served alone", async () => {
    const app = serving("app");
    app.mount("m", serving("m", { discover: NOT_REUSED }));
    expect((await createTestClient(app)).serverResult).toMatchObject(PUBLIC_MINUTE);
  });

  it("the handshake era carries no hints, from a module neither", async () => {
    const app = serving("app", { read: PUBLIC_MINUTE });
    app.mount("m", serving("m", { read: hint(5_000, "private"), list: hint(5_000, "private") }));
    const client = await createTestClient(app, { protocolVersion: "2025-11-25" });
    for (const result of [
      await client.request("resources/read", { uri: "m://fixed" }),
      await client.request("tools/list"),
    ]) {
      expect(result).not.toHaveProperty("ttlMs");
      expect(result).not.toHaveProperty("cacheScope");
    }
  });
});
