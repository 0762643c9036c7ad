import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createServer, type ServerOptions } from "../server/server.js";
import { createTestClient, type TestClient } from "../testing/client.js";
import { definitionError, rpcError } from "../testing/expect-errors.test-util.js";
import { ErrorCode } from "../wire/json-rpc.js";

// Pagination on every list method; completions for prompt arguments and template variables.

function server(options: Partial<ServerOptions> = {}) {
  const s = createServer({ name: "paged", version: "1", stateKey: "sixteen bytes or more", ...options });
  for (let index = 1; index <= 5; index++)
    s.tool({ name: `t${index}`, description: `Tool ${index}`, handler: () => index });
  for (let index = 1; index <= 3; index++)
    s.prompt({ name: `p${index}`, description: `Prompt ${index}`, handler: () => "x" });
  s.resource({ uri: "fixed://a", handler: () => "a" });
  s.resource({
    uriTemplate: "item://{id}",
    list: () => ["1", "2", "3"].map((id) => ({ uri: `item://${id}`, name: `item ${id}` })),
    handler: ({ id }) => String(id),
  });
  return s;
}

async function all(client: TestClient, method: string, key: string) {
  const pages: string[][] = [];
  let cursor: unknown;
  do {
    const result = await client.request(method, cursor === undefined ? {} : { cursor });
    pages.push((result[key] as { name: string }[]).map((item) => item.name));
    cursor = result.nextCursor;
  } while (cursor !== undefined);
  return pages;
}

describe.each(["2025-11-25", "2026-07-28"] as const)("pagination in %s", (protocolVersion) => {
  it("pages every list in registration order; the last page has no nextCursor", async () => {
    const client = await createTestClient(server({ pageSize: 2 }), { protocolVersion });
    expect(await all(client, "tools/list", "tools")).toEqual([["t1", "t2"], ["t3", "t4"], ["t5"]]);
    expect(await all(client, "prompts/list", "prompts")).toEqual([["p1", "p2"], ["p3"]]);
    expect(await all(client, "resources/list", "resources")).toEqual([
      ["fixed://a", "item 1"],
      ["item 2", "item 3"],
    ]);
  });

  it("a page goes on after the last item sent, whatever was shown or hidden before it since", async () => {
    const s = createServer({ name: "paged", version: "1", pageSize: 2 });
    let walk = "first page";
    // t2 shows only after the first page (by offset, t3 came again), t4 hides then (by offset, t5 was skipped).
    for (let index = 1; index <= 6; index++) {
      const guard = () => (walk === "first page" ? index !== 2 : index !== 4);
      s.tool({ name: `t${index}`, description: `Tool ${index}`, guard, handler: () => index });
    }
    const client = await createTestClient(s, { protocolVersion });
    const first = await client.listToolsPage();
    expect(first.tools.map((tool) => tool.name)).toEqual(["t1", "t3"]);
    walk = "later pages";
    const second = await client.listToolsPage(first.nextCursor);
    expect(second.tools.map((tool) => tool.name)).toEqual(["t5", "t6"]);
    expect(second.nextCursor).toBeUndefined();
  });

  it("by default everything is on one page, with no cursor", async () => {
    const client = await createTestClient(server(), { protocolVersion });
    const result = await client.request("tools/list");
    expect((result.tools as unknown[]).length).toBe(5);
    expect("nextCursor" in result).toBe(false);
  });

  it("a cursor the server did not issue, or one from another list, is -32602", async () => {
    const client = await createTestClient(server({ pageSize: 2 }), { protocolVersion });
    const { nextCursor } = await client.request("tools/list");
    const cursor = String(nextCursor);
    const body = btoa(JSON.stringify({ k: "tools", o: 4 })).replace(/=+$/, "");
    const forged = `${body}${cursor.slice(cursor.indexOf("."))}`;
    for (const bad of ["", "nope", forged, `${cursor}x`]) {
      const error = await rpcError(client.request("tools/list", { cursor: bad }));
      expect(error.code).toBe(ErrorCode.InvalidParams);
      expect(error.message).toContain("Invalid cursor");
    }
    expect((await rpcError(client.request("prompts/list", { cursor }))).code).toBe(ErrorCode.InvalidParams);
    const other = await createTestClient(server({ pageSize: 2, stateKey: "another sixteen-byte key" }), {
      protocolVersion,
    });
    expect((await rpcError(other.request("tools/list", { cursor }))).code).toBe(ErrorCode.InvalidParams);
  });
});

it("2026-07-28: every page carries the same caching hint", async () => {
  const client = await createTestClient(server({ pageSize: 2 }));
  const first = await client.request("tools/list");
  const second = await client.request("tools/list", { cursor: first.nextCursor });
  for (const page of [first, second])
    expect(page).toMatchObject({ resultType: "complete", ttlMs: 60_000, cacheScope: "public" });
});

it("a page size below 1 is a definition error", () => {
  definitionError(() => createServer({ name: "x", version: "1", pageSize: 0 }));
});

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
    const client = await createTestClient(server(), { protocolVersion: "2025-11-25" });
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
