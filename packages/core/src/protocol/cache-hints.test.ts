import { describe, expect, it } from "vitest";
import { createServer, type ServerOptions } from "../server/server.js";
import { createTestClient } from "../testing/client.js";
import type { CacheHint, Resource } from "../wire/types.js";

// 2026-07-28 caching hints by default: what is registered is cached publicly for a minute; what a handler computes
// per request is private and not reused, unless its author says otherwise.

const issues = (): Resource[] => ["1", "2"].map((id) => ({ uri: `issues://${id}`, name: `issue ${id}` }));

function tracker(listCache?: CacheHint, options: Partial<ServerOptions> = {}) {
  const server = createServer({ name: "issues", version: "1", ...options });
  server.tool({ name: "create", description: "Create an issue", handler: () => "ok" });
  server.prompt({ name: "triage", handler: () => "Triage the issues" });
  server.resource({ uri: "issues://index", handler: () => "index" });
  server.resource({
    uriTemplate: "issues://{id}",
    list: issues,
    ...(listCache ? { listCache } : {}),
    handler: ({ id }) => `issue ${id}`,
  });
  return server;
}

const PUBLIC_MINUTE = { ttlMs: 60_000, cacheScope: "public" };
const NOT_REUSED = { ttlMs: 0, cacheScope: "private" };

describe("2026-07-28 caching defaults", () => {
  it("static lists are public for a minute; a resources/list a template computes, and reads, are private and not reused", async () => {
    const client = await createTestClient(tracker());
    expect(client.serverResult).toMatchObject(PUBLIC_MINUTE);
    expect(await client.request("tools/list")).toMatchObject(PUBLIC_MINUTE);
    expect(await client.request("prompts/list")).toMatchObject(PUBLIC_MINUTE);
    expect(await client.request("resources/templates/list")).toMatchObject(PUBLIC_MINUTE);
    expect(await client.request("resources/list")).toMatchObject(NOT_REUSED);
    expect(await client.request("resources/read", { uri: "issues://1" })).toMatchObject(NOT_REUSED);
    expect(await client.request("resources/read", { uri: "issues://index" })).toMatchObject(NOT_REUSED);
  });

  it("resources/list of registered resources only stays public", async () => {
    const server = createServer({ name: "static", version: "1" });
    server.resource({ uri: "issues://index", handler: () => "index" });
    server.resource({ uriTemplate: "issues://{id}", handler: ({ id }) => `issue ${id}` });
    expect(await (await createTestClient(server)).request("resources/list")).toMatchObject(PUBLIC_MINUTE);
  });

  it("a template's listCache sets the hint of the list it computes; every page says the same", async () => {
    const client = await createTestClient(tracker({ ttlMs: 5_000, cacheScope: "public" }, { pageSize: 2 }));
    const first = await client.request("resources/list");
    const second = await client.request("resources/list", { cursor: first.nextCursor });
    for (const page of [first, second]) expect(page).toMatchObject({ ttlMs: 5_000, cacheScope: "public" });
  });

  it("with several computing templates the shortest ttl and the narrowest scope win", async () => {
    const server = tracker({ ttlMs: 5_000, cacheScope: "public" });
    server.resource({
      uriTemplate: "labels://{name}",
      list: () => [{ uri: "labels://bug", name: "bug" }],
      listCache: { ttlMs: 30_000, cacheScope: "private" },
      handler: ({ name }) => String(name),
    });
    expect(await (await createTestClient(server)).request("resources/list")).toMatchObject({
      ttlMs: 5_000,
      cacheScope: "private",
    });
  });

  it("a mounted module's computing template makes the parent's resources/list computed too", async () => {
    const app = createServer({ name: "app", version: "1" });
    app.resource({ uri: "app://about", handler: () => "about" });
    app.mount("issues", tracker());
    expect(await (await createTestClient(app)).request("resources/list")).toMatchObject(NOT_REUSED);
  });

  it("a guard keeps the computed list private whatever listCache says", async () => {
    const server = tracker({ ttlMs: 5_000, cacheScope: "public" });
    server.resource({ uri: "issues://secret", guard: () => false, handler: () => "s" });
    expect(await (await createTestClient(server)).request("resources/list")).toMatchObject({
      ttlMs: 5_000,
      cacheScope: "private",
    });
  });

  it("the handshake era carries no hints", async () => {
    const client = await createTestClient(tracker(), { protocolVersion: "2025-11-25" });
    const result = await client.request("resources/list");
    expect(result).not.toHaveProperty("ttlMs");
    expect(result).not.toHaveProperty("cacheScope");
  });
});
