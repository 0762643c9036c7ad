import { describe, expect, it } from "vitest";
import type { ServerOptions } from "../server/options.js";
import { createServer } from "../server/server.js";
import { createTestClient } from "../testing/client.js";
import { definitionError } from "../testing/expect-errors.test-util.js";
import type { Resource } from "../wire/types.js";
import type { CacheHint } from "./cache-hints.js";

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

  it("a mounted module's createServer({ cache }) goes with it: a parent's public reads do not widen its private ones", async () => {
    const module = createServer({ name: "m", version: "1", cache: { read: NOT_REUSED as CacheHint } });
    module.resource({ uri: "m://default", handler: () => "d" });
    module.resource({ uriTemplate: "m://items/{id}", handler: ({ id }) => String(id) });
    module.resource({ uri: "m://own", cache: { ttlMs: 5_000, cacheScope: "public" }, handler: () => "o" });
    const app = createServer({
      name: "app",
      version: "1",
      cache: { read: PUBLIC_MINUTE as CacheHint },
      mount: { m: module },
    });
    app.resource({ uri: "app://about", handler: () => "about" });
    const client = await createTestClient(app);
    expect(await client.request("resources/read", { uri: "m://default" })).toMatchObject(NOT_REUSED);
    expect(await client.request("resources/read", { uri: "m://items/1" })).toMatchObject(NOT_REUSED);
    // A resource's own cache is its author's word for it, the most specific: as it is, wherever it is served.
    expect(await client.request("resources/read", { uri: "m://own" })).toMatchObject({
      ttlMs: 5_000,
      cacheScope: "public",
    });
    expect(await client.request("resources/read", { uri: "app://about" })).toMatchObject(PUBLIC_MINUTE);
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

// A hint the wire would not allow fails where it is given, naming the field and the value, never on a client's request.
const BAD_HINTS: [string, unknown, string][] = [
  [
    "a negative ttl",
    { ttlMs: -1, cacheScope: "public" },
    "ttlMs must be a whole number of milliseconds, 0 or more, not -1",
  ],
  [
    "a fractional ttl",
    { ttlMs: 1.5, cacheScope: "public" },
    "ttlMs must be a whole number of milliseconds, 0 or more, not 1.5",
  ],
  [
    "an endless ttl",
    { ttlMs: Infinity, cacheScope: "public" },
    "ttlMs must be a whole number of milliseconds, 0 or more, not Infinity",
  ],
  [
    "a ttl in text",
    { ttlMs: "60000", cacheScope: "public" },
    'ttlMs must be a whole number of milliseconds, 0 or more, not "60000"',
  ],
  ["no ttl", { cacheScope: "private" }, "ttlMs must be a whole number of milliseconds, 0 or more, not undefined"],
  ["another scope", { ttlMs: 0, cacheScope: "shared" }, 'cacheScope must be "public" or "private", not "shared"'],
  ["no scope", { ttlMs: 0 }, 'cacheScope must be "public" or "private", not undefined'],
  [
    "a NaN ttl",
    { ttlMs: NaN, cacheScope: "public" },
    "ttlMs must be a whole number of milliseconds, 0 or more, not NaN",
  ],
  [
    "a ttl past exact integers",
    { ttlMs: 2 ** 53, cacheScope: "public" },
    "ttlMs must be a whole number of milliseconds, 0 or more, not 9007199254740992",
  ],
  [
    "a field that is not a hint's",
    { ttlMs: 0, cacheScope: "public", maxAge: 60 },
    "maxAge is not a field of a hint; a hint is { ttlMs, cacheScope }",
  ],
  [
    "an own __proto__ field (as JSON.parse makes)",
    JSON.parse('{ "ttlMs": 0, "cacheScope": "public", "__proto__": { "ttlMs": 5 } }'),
    "__proto__ is not a field of a hint; a hint is { ttlMs, cacheScope }",
  ],
];

describe("cache hints are checked when they are given", () => {
  for (const [label, hint, problem] of BAD_HINTS) {
    it(`${label} in createServer({ cache }) throws naming the field`, () => {
      const error = definitionError(() =>
        createServer({ name: "x", version: "1", cache: { read: hint as CacheHint } }),
      );
      expect(error.message).toBe(`cache.read.${problem}`);
    });

    it(`${label} on a resource, a template or a template's list throws naming the field`, () => {
      const server = createServer({ name: "x", version: "1" });
      const cache = hint as CacheHint;
      expect(definitionError(() => server.resource({ uri: "a://b", cache, handler: () => "" })).message).toBe(
        `Resource "a://b" cache.${problem}`,
      );
      expect(
        definitionError(() => server.resource({ uriTemplate: "a://{id}", cache, handler: () => "" })).message,
      ).toBe(`Resource template "a://{id}" cache.${problem}`);
      expect(
        definitionError(() =>
          server.resource({ uriTemplate: "a://{id}", list: issues, listCache: cache, handler: () => "" }),
        ).message,
      ).toBe(`Resource template "a://{id}" listCache.${problem}`);
    });
  }

  it("a hint that is not an object, a kind that does not exist, and cache that is not an object throw naming them", () => {
    const server = (cache: unknown) => () =>
      createServer({ name: "x", version: "1", cache: cache as ServerOptions["cache"] });
    expect(definitionError(server({ discover: 60_000 })).message).toBe(
      "cache.discover must be { ttlMs, cacheScope }, not 60000",
    );
    expect(definitionError(server({ lists: PUBLIC_MINUTE })).message).toBe(
      "cache.lists is not a kind of result; hints are for discover, list and read",
    );
    expect(definitionError(server([PUBLIC_MINUTE])).message).toBe(
      "cache must be an object of hints by kind, not an array",
    );
  });

  it("a handle's update is checked the same way and changes nothing when it fails", async () => {
    const server = tracker();
    const handle = server.registered("resourceTemplate", "issues://{id}");
    expect(definitionError(() => handle?.update({ listCache: { ttlMs: -5, cacheScope: "public" } })).message).toBe(
      'Resource template "issues://{id}" listCache.ttlMs must be a whole number of milliseconds, 0 or more, not -5',
    );
    expect(await (await createTestClient(server)).request("resources/list")).toMatchObject(NOT_REUSED);
  });

  it("a kind left undefined keeps its default", async () => {
    const client = await createTestClient(createServer({ name: "x", version: "1", cache: { discover: undefined } }));
    expect(client.serverResult).toMatchObject(PUBLIC_MINUTE);
  });
});

// What goes on the wire is what was checked: a hint is read once, when given, never again from the author's object.
describe("a hint is taken when it is given", () => {
  /** A hint whose fields answer `first` on the first read and junk after: a getter, or a Proxy. */
  const fickle = (first: CacheHint, proxy = false): CacheHint => {
    const reads = { ttlMs: 0, cacheScope: 0 };
    const answer = (field: keyof CacheHint) =>
      reads[field]++ === 0 ? first[field] : field === "ttlMs" ? NaN : "shared";
    if (proxy) return new Proxy({ ...first }, { get: (_target, field) => answer(field as keyof CacheHint) });
    return {
      get ttlMs() {
        return answer("ttlMs") as number;
      },
      get cacheScope() {
        return answer("cacheScope") as CacheHint["cacheScope"];
      },
    };
  };
  const FIVE_SECONDS = { ttlMs: 5_000, cacheScope: "public" } as const;

  it("createServer({ cache }) reads each field once, getters and Proxies included", async () => {
    for (const proxy of [false, true]) {
      const client = await createTestClient(
        createServer({ name: "x", version: "1", cache: { discover: fickle(FIVE_SECONDS, proxy) } }),
      );
      expect(client.serverResult).toMatchObject(FIVE_SECONDS);
    }
  });

  it("a resource's, a template's and a listCache's hint read once; changing the author's object later changes nothing", async () => {
    const cache = { ...FIVE_SECONDS } as { ttlMs: number; cacheScope: string };
    const listCache = { ...FIVE_SECONDS } as { ttlMs: number; cacheScope: string };
    const fixed = { uri: "a://fixed", cache: cache as CacheHint, handler: () => "fixed" };
    const server = createServer({ name: "x", version: "1" });
    server.resource(fixed);
    server.resource({ uriTemplate: "a://{id}", cache: fickle(FIVE_SECONDS), handler: () => "t" });
    server.resource({ uriTemplate: "b://{id}", list: issues, listCache: listCache as CacheHint, handler: () => "b" });
    Object.assign(cache, { ttlMs: -1, cacheScope: "shared" });
    Object.assign(listCache, { ttlMs: NaN, cacheScope: "shared" });
    fixed.cache = { ttlMs: 1.5, cacheScope: "nobody" } as never;
    const client = await createTestClient(server);
    expect(await client.request("resources/read", { uri: "a://fixed" })).toMatchObject(FIVE_SECONDS);
    expect(await client.request("resources/read", { uri: "a://1" })).toMatchObject(FIVE_SECONDS);
    expect(await client.request("resources/list")).toMatchObject(FIVE_SECONDS);
  });

  it("a handle's update and a mounted module's resources read their hints once too", async () => {
    const module = createServer({ name: "module", version: "1" });
    const cache = { ...FIVE_SECONDS } as { ttlMs: number; cacheScope: string };
    module.resource({ uri: "m://fixed", handler: () => "m" }).update({ cache: cache as CacheHint });
    module.resource({ uriTemplate: "m://{id}", list: issues, listCache: fickle(FIVE_SECONDS), handler: () => "m" });
    const app = createServer({ name: "app", version: "1", mount: { m: module } });
    Object.assign(cache, { ttlMs: -1, cacheScope: "shared" });
    const client = await createTestClient(app);
    expect(await client.request("resources/read", { uri: "m://fixed" })).toMatchObject(FIVE_SECONDS);
    expect(await client.request("resources/list")).toMatchObject(FIVE_SECONDS);
  });

  it("-0 is a ttl of 0; a frozen hint and one inherited from a prototype are taken as they read", async () => {
    const inherited = Object.create({ ttlMs: 7_000, cacheScope: "private" }) as CacheHint;
    const server = createServer({ name: "x", version: "1", cache: { discover: Object.freeze({ ...FIVE_SECONDS }) } });
    server.resource({ uri: "a://zero", cache: { ttlMs: -0, cacheScope: "public" }, handler: () => "z" });
    server.resource({ uri: "a://inherited", cache: inherited, handler: () => "i" });
    const client = await createTestClient(server);
    expect(client.serverResult).toMatchObject(FIVE_SECONDS);
    expect(JSON.stringify(await client.request("resources/read", { uri: "a://zero" }))).toContain('"ttlMs":0,');
    expect(await client.request("resources/read", { uri: "a://inherited" })).toMatchObject({
      ttlMs: 7_000,
      cacheScope: "private",
    });
  });

  it("null where a hint or the cache option goes is refused by name", () => {
    const server = createServer({ name: "x", version: "1" });
    expect(
      definitionError(() => server.resource({ uri: "a://b", cache: null as never, handler: () => "" })).message,
    ).toBe('Resource "a://b" cache must be { ttlMs, cacheScope }, not null');
    expect(definitionError(() => createServer({ name: "x", version: "1", cache: null as never })).message).toBe(
      "cache must be an object of hints by kind, not null",
    );
    expect(
      definitionError(() => createServer({ name: "x", version: "1", cache: { read: null as never } })).message,
    ).toBe("cache.read must be { ttlMs, cacheScope }, not null");
  });
});
