import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createServer, type Server } from "../index.js";
import { HANDSHAKE_VERSIONS, STATELESS_VERSIONS } from "../protocol/versions.js";
import { createTestClient } from "../testing/client.js";
import { rpcError } from "../testing/expect-errors.test-util.js";
import { MetaKey, toServer } from "../transport.js";

// The router's own part: what is listed and advertised, each list shaped for the caller's revision. Then what the
// server adds around it (result envelopes, toServer, copies of the capabilities).

const REVISIONS = [...HANDSHAKE_VERSIONS, ...STATELESS_VERSIONS];

function newServer(): Server {
  return createServer({ name: "router-test", version: "1.0.0" });
}

const noop = () => "ok";

describe("lists and capabilities", () => {
  for (const protocolVersion of REVISIONS) {
    it(`${protocolVersion}: lists keep registration order`, async () => {
      const server = newServer();
      server.tool({ name: "zeta", description: "d", handler: noop });
      server.tool({ name: "alpha", description: "d", handler: noop });
      server.tool({ name: "mid", description: "d", handler: noop });
      server.prompt({ name: "p2", handler: noop });
      server.prompt({ name: "p1", handler: noop });
      server.resource({ uri: "z://b", handler: noop });
      server.resource({ uri: "a://a", handler: noop });
      server.resource({ uriTemplate: "z://{b}", handler: noop });
      server.resource({ uriTemplate: "a://{a}", handler: noop });
      const client = await createTestClient(server, { protocolVersion });
      expect((await client.listTools()).map((tool) => tool.name)).toEqual(["zeta", "alpha", "mid"]);
      expect((await client.listPrompts()).map((prompt) => prompt.name)).toEqual(["p2", "p1"]);
      expect((await client.listResources()).map((resource) => resource.uri)).toEqual(["z://b", "a://a"]);
      expect((await client.listResourceTemplates()).map((template) => template.uriTemplate)).toEqual([
        "z://{b}",
        "a://{a}",
      ]);
    });

    it(`${protocolVersion}: capabilities follow what is registered; the rest is -32601`, async () => {
      const server = newServer();
      server.tool({ name: "t", description: "d", handler: noop });
      const client = await createTestClient(server, { protocolVersion });
      expect(client.serverResult.capabilities).toEqual({ logging: {}, tools: { listChanged: true } });
      expect((await rpcError(client.request("prompts/list"))).code).toBe(-32601);
      expect((await rpcError(client.request("prompts/get", { name: "x" }))).code).toBe(-32601);
      expect((await rpcError(client.request("resources/list"))).code).toBe(-32601);
      expect((await rpcError(client.request("resources/read", { uri: "a://b" }))).code).toBe(-32601);
      expect((await rpcError(client.request("resources/templates/list"))).code).toBe(-32601);
    });
  }

  it("a server with only prompts has no tools methods", async () => {
    const server = newServer();
    server.prompt({ name: "p", handler: noop });
    const client = await createTestClient(server, { protocolVersion: "2025-11-25" });
    expect(client.serverResult.capabilities).toEqual({ logging: {}, prompts: { listChanged: true } });
    expect((await rpcError(client.request("tools/list"))).code).toBe(-32601);
    expect((await rpcError(client.callTool("t"))).code).toBe(-32601);
  });

  it("a template alone gives the resources capability", () => {
    const server = newServer();
    server.resource({ uriTemplate: "n://{id}", handler: noop });
    expect(server.capabilities()).toEqual({ logging: {}, resources: { subscribe: true, listChanged: true } });
  });

  it("an empty server advertises nothing but logging", () => {
    expect(newServer().capabilities()).toEqual({ logging: {} });
  });

  it("a tool registered after listing shows up in the next list", async () => {
    const server = newServer();
    server.tool({ name: "first", description: "d", handler: noop });
    const client = await createTestClient(server, { protocolVersion: "2025-11-25" });
    expect((await client.listTools()).map((tool) => tool.name)).toEqual(["first"]);
    server.tool({ name: "second", description: "d", handler: noop });
    expect((await client.listTools()).map((tool) => tool.name)).toEqual(["first", "second"]);
  });

  it("a tool without input lists an empty object schema and receives {}", async () => {
    let received: unknown;
    const server = newServer();
    server.tool({
      name: "t",
      description: "d",
      handler: (args) => {
        received = args;
        return "ok";
      },
    });
    const client = await createTestClient(server, { protocolVersion: "2025-11-25" });
    expect((await client.listTools())[0]?.inputSchema).toEqual({ type: "object", properties: {} });
    await client.callTool("t");
    expect(received).toEqual({});
  });
});

describe("per-revision shaping", () => {
  const icons = [{ src: "https://example.com/icon.png", mimeType: "image/png" }];
  function server(): Server {
    const built = newServer();
    built.tool({
      name: "weather",
      title: "Weather",
      description: "Today's weather",
      input: { city: z.string() },
      output: z.object({ temperature: z.number() }),
      annotations: { readOnlyHint: true },
      icons,
      handler: () => ({ temperature: 21 }),
    });
    built.tool({
      name: "series",
      description: "A list",
      output: z.array(z.number()),
      handler: () => [1, 2, 3],
    });
    built.prompt({ name: "p", title: "Prompt", description: "d", icons, handler: () => "hi" });
    built.resource({ uri: "n://a", title: "A", icons, handler: () => "a" });
    built.resource({
      uriTemplate: "n://{id}",
      title: "Note",
      icons,
      handler: (vars) => `note ${vars.id}`,
    });
    return built;
  }

  it("2025-03-26: no title, outputSchema, icons or structuredContent", async () => {
    const client = await createTestClient(server(), { protocolVersion: "2025-03-26" });
    const [weather, series] = await client.listTools();
    expect(weather).toEqual({
      name: "weather",
      description: "Today's weather",
      inputSchema: expect.objectContaining({ type: "object" }),
      annotations: { readOnlyHint: true },
    });
    expect(series).not.toHaveProperty("outputSchema");
    const result = await client.callTool("weather", { city: "Oslo" });
    expect(result).not.toHaveProperty("structuredContent");
    expect(result.content).toEqual([{ type: "text", text: '{"temperature":21}' }]);
    for (const item of [
      ...(await client.listPrompts()),
      ...(await client.listResources()),
      ...(await client.listResourceTemplates()),
    ]) {
      expect(item).not.toHaveProperty("title");
      expect(item).not.toHaveProperty("icons");
    }
  });

  it("2025-06-18: title, object outputSchema and structuredContent, but no icons", async () => {
    const client = await createTestClient(server(), { protocolVersion: "2025-06-18" });
    const [weather, series] = await client.listTools();
    expect(weather).toMatchObject({ title: "Weather", outputSchema: { type: "object" } });
    expect(weather).not.toHaveProperty("icons");
    // outputSchema must be an object schema before 2026-07-28.
    expect(series).not.toHaveProperty("outputSchema");
    expect((await client.callTool("weather", { city: "Oslo" })).structuredContent).toEqual({ temperature: 21 });
    for (const item of [
      ...(await client.listPrompts()),
      ...(await client.listResources()),
      ...(await client.listResourceTemplates()),
    ]) {
      expect(item).toHaveProperty("title");
      expect(item).not.toHaveProperty("icons");
    }
  });

  for (const protocolVersion of ["2025-11-25", "2026-07-28"] as const) {
    it(`${protocolVersion}: title, outputSchema and icons`, async () => {
      const client = await createTestClient(server(), { protocolVersion });
      const [weather] = await client.listTools();
      expect(weather).toMatchObject({ title: "Weather", icons, outputSchema: { type: "object" } });
      for (const item of [
        ...(await client.listPrompts()),
        ...(await client.listResources()),
        ...(await client.listResourceTemplates()),
      ]) {
        expect(item).toHaveProperty("title");
        expect(item).toHaveProperty("icons", icons);
      }
    });
  }
});

describe("result envelopes per era", () => {
  function server(): Server {
    const built = createServer({ name: "env", version: "2.0.0" });
    built.tool({ name: "t", description: "d", handler: () => "x" });
    built.prompt({ name: "p", handler: () => "x" });
    built.resource({ uri: "r://default", handler: () => "x" });
    built.resource({ uri: "r://own", cache: { ttlMs: 5_000, cacheScope: "public" }, handler: () => "x" });
    built.resource({
      uriTemplate: "r://t/{id}",
      cache: { ttlMs: 7_000, cacheScope: "private" },
      handler: (vars) => `t ${vars.id}`,
    });
    return built;
  }

  const CACHED: [string, Record<string, unknown>?][] = [
    ["server/discover"],
    ["tools/list"],
    ["prompts/list"],
    ["resources/list"],
    ["resources/templates/list"],
    ["resources/read", { uri: "r://default" }],
  ];
  const UNCACHED: [string, Record<string, unknown>][] = [
    ["tools/call", { name: "t" }],
    ["prompts/get", { name: "p" }],
  ];

  it("2026-07-28: every result has resultType complete and _meta serverInfo", async () => {
    const client = await createTestClient(server(), { protocolVersion: "2026-07-28" });
    for (const [method, params] of [...CACHED, ...UNCACHED]) {
      const result = await client.request(method, params);
      expect(result.resultType, method).toBe("complete");
      expect(result._meta, method).toEqual({ [MetaKey.serverInfo]: { name: "env", version: "2.0.0" } });
    }
  });

  it("2026-07-28: ttlMs and cacheScope exactly on discover, the four lists and resources/read", async () => {
    const client = await createTestClient(server(), { protocolVersion: "2026-07-28" });
    for (const [method, params] of CACHED) {
      const result = await client.request(method, params);
      expect(Number.isInteger(result.ttlMs) && (result.ttlMs as number) >= 0, method).toBe(true);
      expect(["public", "private"], method).toContain(result.cacheScope);
    }
    for (const [method, params] of UNCACHED) {
      const result = await client.request(method, params);
      expect(result, method).not.toHaveProperty("ttlMs");
      expect(result, method).not.toHaveProperty("cacheScope");
    }
  });

  it("2026-07-28: a resource's own cache hint overrides the default", async () => {
    const client = await createTestClient(server(), { protocolVersion: "2026-07-28" });
    const fallback = await client.readResource("r://default");
    const own = await client.readResource("r://own");
    const template = await client.readResource("r://t/1");
    expect(own).toMatchObject({ ttlMs: 5_000, cacheScope: "public" });
    expect(template).toMatchObject({ ttlMs: 7_000, cacheScope: "private" });
    expect(fallback).toMatchObject({ ttlMs: 0, cacheScope: "private" });
    expect(own.contents).toEqual([{ uri: "r://own", text: "x" }]);
  });

  it("2026-07-28: the server's cache option sets the defaults", async () => {
    const configured = createServer({
      name: "c",
      version: "1",
      cache: { list: { ttlMs: 1_234, cacheScope: "private" }, discover: { ttlMs: 99, cacheScope: "public" } },
    });
    configured.tool({ name: "t", description: "d", handler: noop });
    const client = await createTestClient(configured, { protocolVersion: "2026-07-28" });
    expect(client.serverResult).toMatchObject({ ttlMs: 99, cacheScope: "public" });
    expect(await client.request("tools/list")).toMatchObject({ ttlMs: 1_234, cacheScope: "private" });
  });

  for (const protocolVersion of HANDSHAKE_VERSIONS) {
    it(`${protocolVersion}: results carry no resultType, ttlMs or cacheScope`, async () => {
      const client = await createTestClient(server(), { protocolVersion });
      const results = [client.serverResult];
      for (const [method, params] of [...CACHED.slice(1), ...UNCACHED, ["resources/read", { uri: "r://own" }]] as [
        string,
        Record<string, unknown>?,
      ][]) {
        results.push(await client.request(method, params));
      }
      for (const result of results) {
        expect(result).not.toHaveProperty("resultType");
        expect(result).not.toHaveProperty("ttlMs");
        expect(result).not.toHaveProperty("cacheScope");
      }
    });
  }
});

describe("toServer and createTestClient take a Server or anything with toServer()", () => {
  const server = newServer();
  server.tool({ name: "ping2", description: "Answer pong", handler: () => "pong" });

  it("toServer returns a Server as itself", () => {
    expect(toServer(server)).toBe(server);
  });

  it("toServer calls toServer() on an object that has it", () => {
    let calls = 0;
    const servable = {
      toServer() {
        calls++;
        return server;
      },
    };
    expect(toServer(servable)).toBe(server);
    expect(calls).toBe(1);
  });

  it("toServer() found on a class prototype counts", () => {
    class App {
      readonly #server = server;
      toServer(): Server {
        return this.#server;
      }
    }
    expect(toServer(new App())).toBe(server);
  });

  for (const protocolVersion of ["2025-11-25", "2026-07-28"] as const) {
    it(`${protocolVersion}: createTestClient serves the Server behind a servable`, async () => {
      const client = await createTestClient({ toServer: () => server }, { protocolVersion });
      expect((await client.callTool("ping2")).content).toEqual([{ type: "text", text: "pong" }]);
      const direct = await createTestClient(server, { protocolVersion });
      expect((await direct.callTool("ping2")).content).toEqual([{ type: "text", text: "pong" }]);
    });
  }
});

describe("server.capabilities() returns a copy the caller may change", () => {
  function mutate(capabilities: Record<string, unknown>): void {
    // Every field it touches differs from what the server really advertises.
    (capabilities.tools as Record<string, unknown>).listChanged = false;
    delete capabilities.prompts;
    delete capabilities.logging;
    capabilities.completions = {};
  }

  const TOOLS_AND_PROMPTS = { logging: {}, tools: { listChanged: true }, prompts: { listChanged: true } };

  function fullServer(): Server {
    const server = newServer();
    server.tool({ name: "t", description: "d", handler: () => "ok" });
    server.prompt({ name: "p", handler: () => "ok" });
    return server;
  }

  it("a changed copy does not change the next call", () => {
    const server = fullServer();
    const first = server.capabilities();
    mutate(first as Record<string, unknown>);
    expect(server.capabilities()).toEqual(TOOLS_AND_PROMPTS);
    expect(server.capabilities()).not.toBe(server.capabilities());
  });

  it("initialize still reports the real capabilities", async () => {
    const server = fullServer();
    mutate(server.capabilities() as Record<string, unknown>);
    const client = await createTestClient(server, { protocolVersion: "2025-11-25" });
    expect(client.serverResult.capabilities).toEqual(TOOLS_AND_PROMPTS);
  });

  it("server/discover still reports the real capabilities", async () => {
    const server = fullServer();
    mutate(server.capabilities() as Record<string, unknown>);
    const client = await createTestClient(server, { protocolVersion: "2026-07-28" });
    expect(client.serverResult.capabilities).toEqual(TOOLS_AND_PROMPTS);
  });

  it("a copy taken before serving, changed after, does not leak into a later handshake", async () => {
    const server = fullServer();
    const copy = server.capabilities();
    await createTestClient(server, { protocolVersion: "2025-11-25" });
    mutate(copy as Record<string, unknown>);
    const client = await createTestClient(server, { protocolVersion: "2025-06-18" });
    expect(client.serverResult.capabilities).toEqual(TOOLS_AND_PROMPTS);
    const stateless = await createTestClient(server, { protocolVersion: "2026-07-28" });
    expect(stateless.serverResult.capabilities).toEqual(TOOLS_AND_PROMPTS);
  });

  it("capabilities still follow later registrations", () => {
    const server = newServer();
    server.tool({ name: "t", description: "d", handler: () => "ok" });
    mutate(server.capabilities() as Record<string, unknown>);
    server.resource({ uri: "docs://x", handler: () => "x" });
    expect(server.capabilities()).toEqual({
      logging: {},
      tools: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
    });
  });
});
