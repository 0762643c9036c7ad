import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createServer } from "../server/server.js";
import { createTestClient } from "../testing/client.js";
import { definitionError, rpcError } from "../testing/expect-errors.test-util.js";
import { ErrorCode } from "../wire/json-rpc.js";

// Completions for prompt arguments and template variables.

function completing() {
  const airports = Array.from({ length: 150 }, (_, index) => `A${String(index).padStart(3, "0")}`);
  const s = createServer({ name: "complete", version: "1" });
  s.prompt({
    name: "trip",
    description: "Plan a trip",
    args: { from: z.string(), to: z.string(), note: z.string().optional() },
    complete: {
      from: (value) => airports.filter((code) => code.startsWith(value.toUpperCase())),
      to: (value, { arguments: known }) => airports.filter((code) => code.startsWith(value) && code !== known.from),
    },
    handler: ({ from, to }) => `${from} → ${to}`,
  });
  s.resource({
    uriTemplate: "airport://{code}",
    complete: {
      code: async (value) => ({
        values: airports.filter((code) => code.startsWith(value)).slice(0, 3),
        total: 42,
        hasMore: true,
      }),
    },
    handler: ({ code }) => String(code),
  });
  return s;
}

describe.each(["2025-06-18", "2025-11-25", "2026-07-28"] as const)("completion/complete in %s", (protocolVersion) => {
  it("is advertised, caps values at 100 and says how many there are", async () => {
    const client = await createTestClient(completing(), { protocolVersion });
    expect((client.serverResult.capabilities as Record<string, unknown>).completions).toEqual({});
    const wide = await client.complete({ type: "ref/prompt", name: "trip" }, { name: "from", value: "a" });
    expect(wide.values).toHaveLength(100);
    expect(wide).toMatchObject({ total: 150, hasMore: true });
    expect(await client.complete({ type: "ref/prompt", name: "trip" }, { name: "from", value: "A14" })).toEqual({
      values: Array.from({ length: 10 }, (_, index) => `A14${index}`),
      total: 10,
      hasMore: false,
    });
  });

  it("passes the arguments already given, for revisions that send them", async () => {
    const client = await createTestClient(completing(), { protocolVersion });
    const result = await client.complete(
      { type: "ref/prompt", name: "trip" },
      { name: "to", value: "A00" },
      { from: "A001" },
    );
    expect(result.values).not.toContain("A001");
  });

  it("completes template variables, keeping a completer's own total and hasMore", async () => {
    const client = await createTestClient(completing(), { protocolVersion });
    expect(
      await client.complete({ type: "ref/resource", uri: "airport://{code}" }, { name: "code", value: "A1" }),
    ).toEqual({
      values: ["A100", "A101", "A102"],
      total: 42,
      hasMore: true,
    });
  });

  it("an argument without a completer gets no values; an unknown prompt or template is -32602", async () => {
    const client = await createTestClient(completing(), { protocolVersion });
    expect(await client.complete({ type: "ref/prompt", name: "trip" }, { name: "note", value: "" })).toEqual({
      values: [],
      total: 0,
      hasMore: false,
    });
    expect((await rpcError(client.complete({ type: "ref/prompt", name: "nope" }, { name: "x", value: "" }))).code).toBe(
      ErrorCode.InvalidParams,
    );
    expect(
      (await rpcError(client.complete({ type: "ref/resource", uri: "nope://{x}" }, { name: "x", value: "" }))).code,
    ).toBe(ErrorCode.InvalidParams);
  });
});

describe("completions, by definition", () => {
  it("2025-03-26 does not send what was already filled in", async () => {
    const client = await createTestClient(completing(), { protocolVersion: "2025-03-26" });
    const result = await client.complete(
      { type: "ref/prompt", name: "trip" },
      { name: "to", value: "A00" },
      { from: "A001" },
    );
    expect(result.values).toContain("A001");
  });

  it("without a completer there is no completions capability and no method", async () => {
    const s = createServer({ name: "plain", version: "1" });
    s.prompt({ name: "p1", description: "Prompt 1", handler: () => "x" });
    s.resource({ uriTemplate: "item://{id}", handler: ({ id }) => String(id) });
    const client = await createTestClient(s, { protocolVersion: "2025-11-25" });
    expect("completions" in (client.serverResult.capabilities as object)).toBe(false);
    expect((await rpcError(client.complete({ type: "ref/prompt", name: "p1" }, { name: "x", value: "" }))).code).toBe(
      ErrorCode.MethodNotFound,
    );
  });

  it("a completer for an argument or variable that does not exist is a definition error", () => {
    const s = createServer({ name: "x", version: "1" });
    expect(
      definitionError(() =>
        s.prompt({ name: "p", args: { topic: z.string() }, complete: { topc: () => [] }, handler: () => "x" }),
      ).message,
    ).toContain('completer for "topc", which is not one of its arguments ("topic")');
    definitionError(() => s.resource({ uriTemplate: "a://{id}", complete: { name: () => [] }, handler: () => "x" }));
  });
});
