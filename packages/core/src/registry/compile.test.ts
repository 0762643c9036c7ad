import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { createServer, DefinitionError, type Server, toServer } from "../index.js";
import { compileSchema, zodV4Adapter } from "../schema/schema-adapter.js";
import { createTestClient } from "../testing/client.js";

function newServer(name = "compile-cache-test"): Server {
  return createServer({ name, version: "1.0.0" });
}

// Counts JSON Schema generations: one per real compile, none for a cache hit.
function spyOnCompiles() {
  return vi.spyOn(zodV4Adapter, "toJsonSchema");
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe("compileSchema caches per schema object and per io", () => {
  it("the same schema object compiled twice is the identical CompiledSchema, compiled once", () => {
    const schema = z.object({ a: z.string() });
    const compiles = spyOnCompiles();
    const first = compileSchema(schema, "input", "first");
    const second = compileSchema(schema, "input", "second");
    expect(second).toBe(first);
    expect(compiles).toHaveBeenCalledTimes(1);
  });

  it("the same raw-shape object compiled twice is the identical CompiledSchema, compiled once", () => {
    const shape = { a: z.string(), b: z.number().optional() };
    const compiles = spyOnCompiles();
    const first = compileSchema(shape, "input", "first");
    expect(compileSchema(shape, "input", "second")).toBe(first);
    expect(compiles).toHaveBeenCalledTimes(1);
    expect(first.jsonSchema).toMatchObject({ type: "object", required: ["a"] });
  });

  it("input and output are cached apart: each io gets its own JSON Schema", () => {
    // A default makes the field optional on input and present on output.
    const schema = z.object({ loud: z.boolean().default(false) });
    const input = compileSchema(schema, "input", "x");
    const output = compileSchema(schema, "output", "x");
    expect(output).not.toBe(input);
    expect(input.jsonSchema.required).toBeUndefined();
    expect(output.jsonSchema.required).toEqual(["loud"]);
    expect(compileSchema(schema, "input", "x")).toBe(input);
    expect(compileSchema(schema, "output", "x")).toBe(output);
  });

  it("output first, then input, still gives the input form", () => {
    const shape = { loud: z.boolean().default(false) };
    expect(compileSchema(shape, "output", "x").jsonSchema.required).toEqual(["loud"]);
    expect(compileSchema(shape, "input", "x").jsonSchema.required).toBeUndefined();
  });

  it("keyed by identity: an equal-looking but distinct object is compiled on its own", () => {
    const compiles = spyOnCompiles();
    const first = compileSchema({ a: z.string().describe("one") }, "input", "x");
    const second = compileSchema({ a: z.string().describe("two") }, "input", "x");
    expect(second).not.toBe(first);
    expect(compiles).toHaveBeenCalledTimes(2);
    expect(first.jsonSchema).toMatchObject({ properties: { a: { description: "one" } } });
    expect(second.jsonSchema).toMatchObject({ properties: { a: { description: "two" } } });
  });

  it("a raw shape and the z.object of the same fields are different keys", () => {
    const shape = { a: z.string() };
    const object = z.object(shape);
    expect(compileSchema(shape, "input", "x")).not.toBe(compileSchema(object, "input", "x"));
  });

  it("a cached compile still validates each value on its own", async () => {
    const shape = { n: z.coerce.number() };
    const compiled = compileSchema(shape, "input", "x");
    expect(await compileSchema(shape, "input", "x").validate({ n: "3" })).toEqual({ ok: true, value: { n: 3 } });
    expect(await compiled.validate({ n: "7" })).toEqual({ ok: true, value: { n: 7 } });
    expect((await compiled.validate({ n: "x" })).ok).toBe(false);
  });

  it("a schema that cannot compile throws every time, naming each caller", () => {
    const schema = z.object({ when: z.date() });
    expect(() => compileSchema(schema, "input", "Tool one input")).toThrow(DefinitionError);
    expect(() => compileSchema(schema, "input", "Tool two input")).toThrow(/^Tool two input cannot be expressed/);
  });
});

describe("servers share compiles of the same schema object", () => {
  it("two servers registering tools with the same shape object compile it once", async () => {
    const shape = { text: z.string().describe("What to echo") };
    const compiles = spyOnCompiles();
    const echo = ({ text }: { text: string }) => text;
    const a = newServer("a");
    a.tool({ name: "echo", description: "Echo", input: shape, handler: echo });
    const b = newServer("b");
    b.tool({ name: "say", description: "Say", input: shape, handler: echo });
    expect(compiles).toHaveBeenCalledTimes(1);

    // Both still list and validate with the shared compile.
    for (const [server, name] of [
      [a, "echo"],
      [b, "say"],
    ] as const) {
      const client = await createTestClient(server, { protocolVersion: "2025-11-25" });
      const [tool] = await client.listTools();
      expect(tool?.inputSchema).toMatchObject({
        type: "object",
        properties: { text: { description: "What to echo" } },
      });
      expect((await client.callTool(name, { text: "hi" })).content).toEqual([{ type: "text", text: "hi" }]);
      expect((await client.callTool(name, { text: 1 })).isError).toBe(true);
    }
    expect(compiles).toHaveBeenCalledTimes(1);
  });

  it("a tool's input and a prompt's args that are the same object share one compile", () => {
    const shape = { topic: z.string() };
    const compiles = spyOnCompiles();
    const server = newServer();
    server.tool({ name: "t", description: "d", input: shape, handler: () => "ok" });
    server.prompt({ name: "p", args: shape, handler: () => "ok" });
    expect(compiles).toHaveBeenCalledTimes(1);
  });

  it("a tool output schema reused as another tool's input compiles once per io", () => {
    const schema = z.object({ n: z.number().default(0) });
    const compiles = spyOnCompiles();
    const server = newServer();
    server.tool({ name: "make", description: "d", output: schema, handler: () => ({ n: 1 }) });
    server.tool({ name: "take", description: "d", input: schema, handler: () => "ok" });
    server.tool({ name: "take2", description: "d", input: schema, handler: () => "ok" });
    expect(compiles).toHaveBeenCalledTimes(2);
    expect(compiles.mock.calls.map(([, io]) => io).sort()).toEqual(["input", "output"]);
  });
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
