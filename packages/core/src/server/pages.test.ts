import { describe, expect, it } from "vitest";
import { createTestClient, type TestClient } from "../testing/client.js";
import { rpcError } from "../testing/expect-errors.test-util.js";
import { ErrorCode } from "../wire/json-rpc.js";
import type { ServerOptions } from "./options.js";
import { createServer } from "./server.js";

// Pagination on every list method, with sealed cursors.

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
