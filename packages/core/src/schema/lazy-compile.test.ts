import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import * as z3 from "zod/v3";
import { createServer, type Server } from "../index.js";
import { createTestClient } from "../testing/client.js";
import { DefinitionError } from "../wire/errors.js";
import { compileSchema, zodV4Adapter } from "./adapters.js";
import { CALLS, corpus } from "./schema-corpus.test-util.js";
import { zodV3Adapter } from "./zod-v3.js";

// A tool's JSON Schema is made on first use when a walk of the schema shows it surely has one; anything else is
// converted at registration, as before. Either way a server must register, list and validate exactly the same.

const REVISIONS = ["2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"] as const;
const ANY_ARGUMENTS = z.looseObject({});

afterEach(() => {
  vi.restoreAllMocks();
});

// Counts every conversion to JSON Schema, by either zod version.
function countConversions(): () => number {
  const v4 = vi.spyOn(zodV4Adapter, "toJsonSchema");
  const v3 = vi.spyOn(zodV3Adapter, "toJsonSchema");
  return () => v4.mock.calls.length + v3.mock.calls.length;
}

interface Outcome {
  registered: Record<string, string>;
  /** The samples registered without a conversion. */
  deferred: string[];
  lists: string[];
  calls: string[];
}

// Register the whole corpus as tools' inputs or outputs: converting at once (`eager`, as registration did before) or
// on first use where the walk allows; then list in every revision and call each tool with a few arguments.
async function outcome(io: "input" | "output", eager: boolean): Promise<Outcome> {
  if (eager) {
    vi.spyOn(zodV4Adapter, "surely").mockReturnValue(false);
    vi.spyOn(zodV3Adapter, "surely").mockReturnValue(false);
  }
  const conversions = countConversions();
  const server = createServer({ name: "corpus", version: "1.0.0" });
  const registered: Record<string, string> = {};
  const deferred: string[] = [];
  for (const [index, { label, schema }] of corpus().entries()) {
    const before = conversions();
    try {
      const schemas = io === "input" ? { input: schema } : { input: ANY_ARGUMENTS, output: schema };
      server.tool({
        name: `t${index}`,
        description: label,
        ...schemas,
        handler: (args: unknown) => ({ got: args }),
      } as never);
      registered[label] = "registered";
      if (conversions() === before) deferred.push(label);
    } catch (error) {
      registered[label] = error instanceof DefinitionError ? `DefinitionError: ${error.message}` : String(error);
    }
  }
  vi.restoreAllMocks();
  const lists: string[] = [];
  for (const protocolVersion of REVISIONS) {
    const client = await createTestClient(server, { protocolVersion });
    lists.push(JSON.stringify(await client.request("tools/list")));
  }
  const client = await createTestClient(server, { protocolVersion: "2025-11-25" });
  const calls: string[] = [];
  for (const tool of await client.listTools()) {
    for (const args of CALLS) {
      calls.push(JSON.stringify(await client.callTool(tool.name, io === "input" ? args : { ...args, f: args })));
    }
  }
  return { registered, deferred, lists, calls };
}

describe.each(["input", "output"] as const)("the corpus as %s schemas, converted at once or on first use", (io) => {
  it("registers, rejects (with the same DefinitionError), lists and validates the same", async () => {
    const eager = await outcome(io, true);
    const lazy = await outcome(io, false);
    expect(eager.deferred).toEqual([]);
    expect(lazy.registered).toEqual(eager.registered);
    expect(lazy.lists).toEqual(eager.lists);
    expect(lazy.calls).toEqual(eager.calls);
    // The walk defers what the corpus says it surely converts, and only that.
    const expected = corpus().filter((sample) => sample.lazy);
    expect(lazy.deferred).toEqual(expected.map((sample) => sample.label));
    // What registration must reject, it still rejects.
    expect(Object.values(lazy.registered).filter((one) => one !== "registered").length).toBeGreaterThan(40);
  });
});

function weather(): Server {
  const server = createServer({ name: "weather", version: "1.0.0" });
  server.tool({
    name: "forecast",
    description: "Forecast",
    input: { city: z.string().describe("City"), days: z.number().int().min(1).max(7).optional() },
    output: z.object({ summary: z.string() }),
    handler: ({ city }) => ({ summary: `sun in ${city}` }),
  });
  return server;
}

describe("a schema made on first use", () => {
  it("is made by the first list, once: later lists, describe() and calls reuse it", async () => {
    const conversions = countConversions();
    const server = weather();
    expect(conversions()).toBe(0);
    const client = await createTestClient(server, { protocolVersion: "2025-11-25" });
    const [first] = await client.listTools();
    expect(conversions()).toBe(2);
    expect(first?.inputSchema).toMatchObject({ type: "object", required: ["city"] });
    await client.listTools();
    await client.callTool("forecast", { city: "Oslo" });
    const handle = server.registered("tool", "forecast");
    expect(handle?.describe().inputSchema).toEqual(first?.inputSchema);
    expect(conversions()).toBe(2);
  });

  it("a call before any list makes the input schema once, and the list after reuses it", async () => {
    const conversions = countConversions();
    const server = weather();
    const client = await createTestClient(server, { protocolVersion: "2026-07-28" });
    expect((await client.callTool("forecast", { city: "Lima" })).structuredContent).toEqual({ summary: "sun in Lima" });
    expect((await client.callTool("forecast", { city: 3 })).isError).toBe(true);
    const made = conversions();
    expect(made).toBeGreaterThanOrEqual(1);
    await client.listTools();
    expect(conversions()).toBe(2);
  });

  it("the validator is swapped in once: every call after the first runs the same one", async () => {
    const shape = { n: z.number() };
    const compiled = compileSchema(shape, "input", "x");
    const first = compiled.validate;
    expect(await compiled.validate({ n: 1 })).toEqual({ ok: true, value: { n: 1 } });
    const built = compiled.validate;
    expect(built).not.toBe(first);
    expect(await compiled.validate({ n: "1" })).toMatchObject({ ok: false });
    expect(compiled.validate).toBe(built);
  });

  it("two lists racing the first conversion list the same bytes, the same object underneath", async () => {
    const server = weather();
    const one = await createTestClient(server, { protocolVersion: "2026-07-28" });
    const two = await createTestClient(server, { protocolVersion: "2026-07-28" });
    const [a, b] = await Promise.all([one.request("tools/list"), two.request("tools/list")]);
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    const listed = server.registered("tool", "forecast")?.describe();
    expect(listed?.inputSchema).toBe(server.registered("tool", "forecast")?.describe().inputSchema);
    expect(Object.keys(listed ?? {})).toEqual(["name", "description", "inputSchema", "outputSchema"]);
  });

  it("update() swaps the schema; one that cannot be represented throws and changes nothing", async () => {
    const server = weather();
    const handle = server.registered("tool", "forecast");
    const client = await createTestClient(server, { protocolVersion: "2025-11-25" });
    await client.listTools();
    handle?.update({ input: { town: z.string() } } as never);
    expect((await client.listTools())[0]?.inputSchema).toMatchObject({ required: ["town"] });
    expect(() => handle?.update({ input: { when: z.date() } } as never)).toThrow(/cannot be expressed as JSON Schema/);
    expect((await client.listTools())[0]?.inputSchema).toMatchObject({ required: ["town"] });
    expect((await client.callTool("forecast", { town: "Oslo" })).isError).toBe(false);
  });

  it("a schema whose JSON Schema would hold a BigInt (an enum's value, a v3 literal or default) is refused at registration, never at the first list", async () => {
    const server = weather();
    for (const input of [
      { e: z.enum({ A: 1n } as never) },
      { l: z3.literal(1n) },
      { d: z3.number().default(1n as never) },
    ]) {
      expect(() => server.tool({ name: "big", description: "d", input, handler: () => "" } as never)).toThrow(
        /cannot be expressed as JSON Schema/,
      );
    }
    const client = await createTestClient(server, { protocolVersion: "2025-11-25" });
    expect((await client.listTools()).map((tool) => tool.name)).toEqual(["forecast"]);
  });

  it("a raw shape changed after registration is listed and validated as registered", async () => {
    const server = createServer({ name: "shapes", version: "1.0.0" });
    const input: Record<string, z.ZodType> = { city: z.string() };
    server.tool({ name: "where", description: "d", input, handler: ({ city }: { city: string }) => city } as never);
    // Had the first list read the shape now, its Date would fail every tools/list.
    input.when = z.date();
    const client = await createTestClient(server, { protocolVersion: "2025-11-25" });
    expect((await client.listTools())[0]?.inputSchema).toMatchObject({ required: ["city"] });
    expect(await client.callTool("where", { city: "Oslo" })).toMatchObject({ isError: false });
  });

  it("a mounted module's tools are listed through the parent with their schemas", async () => {
    const parent = createServer({ name: "app", version: "1.0.0" }).mount("wx", weather());
    const client = await createTestClient(parent, { protocolVersion: "2025-11-25" });
    const [tool] = await client.listTools();
    expect(tool?.name).toBe("wx.forecast");
    expect(tool?.inputSchema).toMatchObject({ type: "object", properties: { city: { description: "City" } } });
    expect((await client.callTool("wx.forecast", { city: "Rome" })).structuredContent).toEqual({
      summary: "sun in Rome",
    });
  });
});
