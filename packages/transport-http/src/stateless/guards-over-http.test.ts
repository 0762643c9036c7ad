import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createServer, type RequestContext } from "@toolsmith/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type HttpServer, listen } from "../doors/node-server.js";

// Two principals over HTTP: the authenticate hook gives each a scope set; each sees and calls only its own tools.

const TOKENS: Record<string, { subject: string; scopes: string[] }> = {
  "Bearer ada-token": { subject: "ada", scopes: ["billing"] },
  "Bearer bob-token": { subject: "bob", scopes: ["support"] },
};
const scoped = (scope: string) => (ctx: RequestContext) => ctx.auth?.scopes.includes(scope) === true;

let http: HttpServer;

beforeAll(async () => {
  const server = createServer({ name: "desk", version: "1" });
  server.tool({ name: "whoami", description: "Anyone", handler: (_args, ctx) => ctx.auth?.subject ?? "nobody" });
  server.tool({ name: "refund", description: "Billing only", guard: scoped("billing"), handler: () => "refunded" });
  server.tool({ name: "reply", description: "Support only", guard: scoped("support"), handler: () => "replied" });
  http = await listen(server, {
    port: 0,
    log: null,
    authenticate: (request) => TOKENS[request.headers.get("authorization") ?? ""],
  });
});

afterAll(() => http.close());

async function connect(token: string, mode: "legacy" | { pin: "2026-07-28" }): Promise<Client> {
  const client = new Client({ name: "guards", version: "1" }, { versionNegotiation: { mode } });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(http.url), { requestInit: { headers: { authorization: token } } }),
  );
  return client;
}

describe.each([
  ["handshake era", "legacy" as const],
  ["2026-07-28", { pin: "2026-07-28" as const }],
])("guards per principal over HTTP (%s)", (_era, mode) => {
  it("each principal sees and calls only its own tools; the other's answers as unknown", async () => {
    const ada = await connect("Bearer ada-token", mode);
    const bob = await connect("Bearer bob-token", mode);
    try {
      expect((await ada.listTools({}, { cacheMode: "bypass" } as never)).tools.map((tool) => tool.name)).toEqual([
        "whoami",
        "refund",
      ]);
      expect((await bob.listTools({}, { cacheMode: "bypass" } as never)).tools.map((tool) => tool.name)).toEqual([
        "whoami",
        "reply",
      ]);
      expect(await ada.callTool({ name: "whoami", arguments: {} })).toMatchObject({ content: [{ text: "ada" }] });
      expect(await ada.callTool({ name: "refund", arguments: {} })).toMatchObject({ content: [{ text: "refunded" }] });
      await expect(ada.callTool({ name: "reply", arguments: {} })).rejects.toThrow(/Unknown tool: reply/);
      await expect(bob.callTool({ name: "refund", arguments: {} })).rejects.toThrow(/Unknown tool: refund/);
    } finally {
      await ada.close();
      await bob.close();
    }
  });
});

it("2026-07-28: the caller-dependent list says cacheScope private", async () => {
  const response = await fetch(http.url, {
    method: "POST",
    headers: {
      authorization: "Bearer ada-token",
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/list",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/list",
      params: {
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": {},
        },
      },
    }),
  });
  expect(((await response.json()) as { result: { cacheScope: string } }).result.cacheScope).toBe("private");
});
