import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { type AuthInfo, createServer, type Server, type ToolDefinition, type ToolRanking } from "@toolsmith/core";
import { createTestClient } from "@toolsmith/core/testing";
import { openApiTools } from "@toolsmith/openapi";
import { type HttpServer, listen } from "@toolsmith/transport-http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import QUERIES from "./github-queries.json" with { type: "json" };

// The search surface over GitHub's published OpenAPI document (1,223 operations), measured on a query set written
// as users ask (./github-queries.json; README.md says how its labels were chosen).

const require = createRequire(import.meta.url);
const TEXT = readFileSync(require.resolve("@octokit/openapi/generated/api.github.com.json"), "utf8");
// Nothing leaves the machine: calls go to a closed local port.
const BASE_URL = "http://127.0.0.1:9";

// The queries are split by a fixed rule into two halves: even positions in the file (0, 2, …) are the half rankings
// were tuned on, odd positions the held-out half no choice looked at (README.md gives both).
type Half = "tuned" | "heldOut";
const halfOf = (index: number): Half => (index % 2 === 0 ? "tuned" : "heldOut");

// The queries each ranking answered in each half (61 and 60) when measured (README.md), less a margin of two each.
const FLOOR: Record<ToolRanking, Record<Half, { top1: number; top5: number }>> = {
  bm25: { tuned: { top1: 15, top5: 38 }, heldOut: { top1: 22, top5: 33 } },
  fields: { tuned: { top1: 21, top5: 41 }, heldOut: { top1: 27, top5: 42 } },
};
const MARGIN = 2;

const admin: AuthInfo = { subject: "ada", scopes: ["admin"] };
const reader: AuthInfo = { subject: "rob", scopes: ["read"] };
// Deleting is for admins: a guard hides every delete operation from anyone else.
const DELETES = (name: string) => /(^|_)delete/.test(name);

let tools: readonly ToolDefinition[];

function catalogue(toolSearch: boolean | { ranking: ToolRanking }): Server {
  const server = createServer({ name: "github", version: "1", toolSearch });
  for (const tool of tools) {
    server.tool(DELETES(tool.name) ? { ...tool, guard: (ctx) => ctx.auth?.scopes.includes("admin") === true } : tool);
  }
  return server;
}

const nameOf = (operationId: string) => operationId.replace(/[^A-Za-z0-9_.-]+/g, "_");

function found(result: { content: unknown[] }): string[] {
  const text = (result.content[0] as { text: string }).text;
  return text.startsWith("{") ? (JSON.parse(text) as { tools: { name: string }[] }).tools.map((tool) => tool.name) : [];
}

/** Top-1 and top-5 accuracy of a ranking over each half of the query set, and the queries it missed in its top 5. */
async function measure(ranking: ToolRanking) {
  const client = await createTestClient(catalogue({ ranking }), { auth: admin });
  const counts = { tuned: { top1: 0, top5: 0 }, heldOut: { top1: 0, top5: 0 } };
  const misses: string[] = [];
  try {
    for (const [index, { query, answers }] of QUERIES.queries.entries()) {
      const names = found(await client.callTool("search_tools", { query, limit: 5 }));
      const right = new Set(answers.map(nameOf));
      const half = counts[halfOf(index)];
      if (right.has(names[0] as string)) half.top1++;
      if (names.some((name) => right.has(name))) half.top5++;
      else misses.push(`${query} → ${names.slice(0, 3).join(", ")}`);
    }
  } finally {
    client.close();
  }
  return { counts, misses };
}

beforeAll(async () => {
  ({ tools } = await openApiTools({ document: TEXT, baseUrl: BASE_URL }));
});

describe("search over GitHub's catalogue", () => {
  it("labels only operations the document has, and at least 100 queries", () => {
    expect(QUERIES.queries.length).toBeGreaterThanOrEqual(100);
    const names = new Set(tools.map((tool) => tool.name));
    const unknown = QUERIES.queries.flatMap(({ answers }) => answers.map(nameOf).filter((name) => !names.has(name)));
    expect(unknown).toEqual([]);
  });

  it.each(["bm25", "fields"] as const)("%s keeps its measured top-1 and top-5 accuracy", async (ranking) => {
    const { counts, misses } = await measure(ranking);
    // A failure gives the counts and names the queries whose answer was not in the top 5.
    const missed = `${JSON.stringify(counts)}; missed in the top 5: ${misses.join("; ")}`;
    for (const half of ["tuned", "heldOut"] as const) {
      expect(counts[half].top1, missed).toBeGreaterThanOrEqual(FLOOR[ranking][half].top1 - MARGIN);
      expect(counts[half].top5, missed).toBeGreaterThanOrEqual(FLOOR[ranking][half].top5 - MARGIN);
    }
  });

  it("lists a fraction of what listing everything costs a host", async () => {
    const full = await createTestClient(catalogue(false), { auth: admin });
    const surface = await createTestClient(catalogue(true), { auth: admin });
    const listed = await full.listTools();
    const everything = JSON.stringify({ tools: listed }).length;
    const inputsOnly = JSON.stringify({ tools: listed.map(({ outputSchema: _, ...tool }) => tool) }).length;
    const small = JSON.stringify({ tools: await surface.listTools() }).length;
    // What the model then reads per search: five tools with their input schemas.
    let searched = 0;
    const sample = QUERIES.queries.slice(0, 20);
    for (const { query } of sample) {
      const result = await surface.callTool("search_tools", { query, limit: 5 });
      searched += JSON.stringify(result).length;
    }
    full.close();
    surface.close();
    expect(small).toBeLessThan(2_000);
    expect(everything).toBeGreaterThan(1000 * small);
    expect(searched / sample.length).toBeLessThan(inputsOnly / 100);
  });

  it("finds and calls a guarded tool only for the callers its guard lets see it", async () => {
    const server = catalogue(true);
    const asReader = await createTestClient(server, { auth: reader });
    const asAdmin = await createTestClient(server, { auth: admin });
    const query = { query: "permanently delete a repository", limit: 20 };
    expect(found(await asAdmin.callTool("search_tools", query))).toContain("repos_delete");
    const shown = found(await asReader.callTool("search_tools", query));
    expect(shown).toHaveLength(20);
    expect(shown.filter(DELETES)).toEqual([]);
    const hidden = await asReader.callTool("call_tool", { name: "repos_delete", arguments: {} }).catch((e) => e);
    const missing = await asReader.callTool("call_tool", { name: "repos_nope", arguments: {} }).catch((e) => e);
    expect(hidden.message.replace("repos_delete", "X")).toBe(missing.message.replace("repos_nope", "X"));
    expect(hidden.code).toBe(missing.code);
    // Both at once, interleaved: each search ranks among what its own caller may see.
    const both = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? asReader : asAdmin).callTool("search_tools", query)),
    );
    both.forEach((result, i) => {
      const names = found(result);
      if (i % 2 === 0) expect(names.filter(DELETES)).toEqual([]);
      else expect(names).toContain("repos_delete");
    });
    asReader.close();
    asAdmin.close();
  });
});

describe.each([
  ["2025-11-25 handshake", "legacy"],
  ["2026-07-28", { pin: "2026-07-28" }],
] as const)("the official client through the search surface over HTTP, %s", (_era, mode) => {
  let mcp: HttpServer;

  beforeAll(async () => {
    mcp = await listen(catalogue({ ranking: "fields" }), {
      port: 0,
      log: null,
      authenticate: (request) => (request.headers.get("authorization") === "Bearer admin" ? admin : reader),
    });
  });

  afterAll(async () => {
    await mcp?.close();
  });

  async function connect(token: string): Promise<Client> {
    const client = new Client({ name: "search-test", version: "1.0.0" }, { versionNegotiation: { mode } });
    const requestInit = { headers: { authorization: `Bearer ${token}` } };
    await client.connect(new StreamableHTTPClientTransport(new URL(mcp.url), { requestInit }));
    return client;
  }

  it("lists two tools, finds one with its schema, and calls it through call_tool", async () => {
    const client = await connect("admin");
    try {
      const { tools: listed } = await client.listTools();
      expect(listed.map((tool) => tool.name)).toEqual(["search_tools", "call_tool"]);
      const search = await client.callTool({
        name: "search_tools",
        arguments: { query: "create an issue", limit: 5 },
      });
      const text = (search.content as { text: string }[])[0]?.text as string;
      const best = (JSON.parse(text) as { tools: { name: string; inputSchema: { required: string[] } }[] }).tools;
      const issue = best.find((tool) => tool.name === "issues_create");
      expect(issue?.inputSchema.required).toEqual(expect.arrayContaining(["owner", "repo"]));
      // The tool's own validation answers a call missing an argument, before any request.
      const invalid = await client.callTool({ name: "call_tool", arguments: { name: "issues_get", arguments: {} } });
      expect(invalid.isError).toBe(true);
      expect(JSON.stringify(invalid.content)).toContain("owner");
      // A valid call reaches the operation, whose request to a closed port is an error the model reads.
      const called = await client.callTool({
        name: "call_tool",
        arguments: { name: "repos_get", arguments: { owner: "octocat", repo: "hello-world" } },
      });
      expect(called.isError).toBe(true);
      expect(JSON.stringify(called.content)).toMatch(/127\.0\.0\.1:9|fetch failed|ECONNREFUSED/);
    } finally {
      await client.close();
    }
  });

  it("hides what a guard hides from search and from call_tool alike", async () => {
    const client = await connect("reader");
    try {
      const search = await client.callTool({
        name: "search_tools",
        arguments: { query: "delete a repository", limit: 20 },
      });
      expect((search.content as { text: string }[])[0]?.text).not.toContain('"repos_delete"');
      const hidden = await client
        .callTool({ name: "call_tool", arguments: { name: "repos_delete", arguments: {} } })
        .catch((error: Error) => error.message);
      const missing = await client
        .callTool({ name: "call_tool", arguments: { name: "repos_nope", arguments: {} } })
        .catch((error: Error) => error.message);
      expect(String(hidden).replace("repos_delete", "X")).toBe(String(missing).replace("repos_nope", "X"));
      const huge = await client.callTool({ name: "search_tools", arguments: { query: "issue ".repeat(1000) } });
      expect(huge.isError).toBe(true);
      expect((huge.content as { text: string }[])[0]?.text).toBe(
        "query: at most 500 characters, not 6000; say it in fewer words",
      );
      // Past the transport's 4 MiB a body is refused (413) before it is parsed; the server answers on.
      const body = await client
        .callTool({ name: "search_tools", arguments: { query: "x".repeat(5 * 1024 * 1024) } })
        .then(
          () => "answered",
          (error: Error) => error.message,
        );
      expect(body).toMatch(/Request body over 4194304 bytes/);
      const after = await client.callTool({ name: "search_tools", arguments: { query: "list issues" } });
      expect(after.isError).toBeUndefined();
    } finally {
      await client.close();
    }
  });
});
