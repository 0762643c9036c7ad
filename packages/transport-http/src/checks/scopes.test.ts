import { Client, InsufficientScopeError, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createServer, type LogEntry, type Server } from "@toolsmith/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { HttpOptions } from "../dispatch/options.js";
import { createHttpHandler } from "../doors/http-handler.js";
import { type HttpServer, listen } from "../doors/node-server.js";
import { call2026, H, headers2026, initialize, META, openSession, post } from "../exchange/requests.test-util.js";

// Scopes per operation over HTTP (docs/decisions/0008-scopes.md): a token short of a scope gets 403 with an RFC 6750
// insufficient_scope challenge naming every scope the operation needs, in both eras; the official client sees it.

const TOKENS: Record<string, { subject: string; scopes: string[] }> = {
  "Bearer reader": { subject: "rob", scopes: ["files:read"] },
  "Bearer writer": { subject: "wes", scopes: ["files:read", "files:write"] },
  "Bearer admin": { subject: "ada", scopes: ["files:admin"] },
};

const METADATA = "http://127.0.0.1:3000/.well-known/oauth-protected-resource/mcp";

function files(log: LogEntry[] = []): Server {
  const s = createServer({
    name: "files",
    version: "1",
    impliedScopes: { "files:admin": ["files:write", "files:read"] },
    logger: (entry) => void log.push(entry),
  });
  s.tool({
    name: "write",
    description: "Write a file",
    scopes: ["files:write"],
    input: { path: z.string() },
    handler: async ({ path }, ctx) => {
      ctx.log.info("writing");
      return `wrote ${path}`;
    },
  });
  s.tool({ name: "read", description: "Read", scopes: ["files:read"], handler: () => "read" });
  return s;
}

const OPTIONS: HttpOptions = {
  authenticate: (request) => TOKENS[request.headers.get("authorization") ?? ""],
  resourceMetadata: { authorizationServers: ["https://auth.example.com"] },
};

const CHALLENGE = `Bearer error="insufficient_scope", scope="files:write", resource_metadata="${METADATA}", error_description="This operation needs the scopes files:write"`;

const REFUSAL = {
  code: -32011,
  message: "Insufficient scope: this operation needs files:write",
  data: { scopes: ["files:write"] },
};

describe("scopes over HTTP", () => {
  it("2026-07-28: 403 with the challenge, JSON even when the client accepts SSE; a token with the scope is served", async () => {
    const handle = createHttpHandler(files(), OPTIONS);
    const refused = await handle(
      call2026(1, "write", { arguments: { path: "a" } }, { authorization: "Bearer reader" }),
    );
    expect(refused.status).toBe(403);
    expect(refused.headers.get("content-type")).toBe("application/json");
    expect(refused.headers.get("www-authenticate")).toBe(CHALLENGE);
    expect(await refused.json()).toEqual({ jsonrpc: "2.0", id: 1, error: REFUSAL });
    const served = await handle(call2026(2, "write", { arguments: { path: "a" } }, { authorization: "Bearer writer" }));
    expect(served.status).toBe(200);
    // The hierarchy: files:admin implies files:write.
    const admin = await handle(call2026(3, "write", { arguments: { path: "a" } }, { authorization: "Bearer admin" }));
    expect(admin.status).toBe(200);
  });

  it("handshake era: 403 with the challenge in a session; a 2025-03-26 batch keeps 200 with the error inside", async () => {
    const handle = createHttpHandler(files(), OPTIONS);
    const auth = { authorization: "Bearer reader" };
    const authed = (request: Request) =>
      handle(new Request(request, { headers: { ...Object.fromEntries(request.headers), ...auth } }));
    const session = await openSession(authed);
    const call = { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "write", arguments: { path: "a" } } };
    const refused = await handle(post(call, { ...H, ...auth, "mcp-session-id": session }));
    expect(refused.status).toBe(403);
    expect(refused.headers.get("www-authenticate")).toBe(CHALLENGE);
    expect(await refused.json()).toEqual({ jsonrpc: "2.0", id: 2, error: REFUSAL });
    // 2025-03-26: a batch is one reply for many requests, so it stays 200 and carries the refusal inside.
    const opened = await handle(post(initialize(1, "2025-03-26"), { ...H, ...auth }));
    const old = opened.headers.get("mcp-session-id") as string;
    const headers = { ...H, ...auth, "mcp-session-id": old };
    await handle(post({ jsonrpc: "2.0", method: "notifications/initialized" }, headers));
    const batch = await handle(post([call, { jsonrpc: "2.0", id: 3, method: "ping" }], headers));
    expect(batch.status).toBe(200);
    expect(batch.headers.get("www-authenticate")).toBeNull();
    expect(await batch.json()).toEqual([
      { jsonrpc: "2.0", id: 2, error: REFUSAL },
      { jsonrpc: "2.0", id: 3, result: {} },
    ]);
  });

  it("metadata lists every scope the server uses by default, live; the 401 names the server's own scopes", async () => {
    const s = files();
    const handle = createHttpHandler(s, OPTIONS);
    const metadata = async () =>
      (await (await handle(new Request(METADATA))).json()) as { scopes_supported?: string[] };
    expect((await metadata()).scopes_supported).toEqual(["files:read", "files:write"]);
    s.tool({ name: "later", description: "Later", scopes: ["audit"], handler: () => 1 });
    expect((await metadata()).scopes_supported).toEqual(["audit", "files:read", "files:write"]);
    const given = createHttpHandler(s, {
      ...OPTIONS,
      resourceMetadata: { authorizationServers: [], scopesSupported: ["x"] },
    });
    expect(
      ((await (await given(new Request(METADATA))).json()) as { scopes_supported: string[] }).scopes_supported,
    ).toEqual(["x"]);
    const wide = createServer({ name: "wide", version: "1", scopes: ["mcp", "files:read"] });
    wide.tool({ name: "t", description: "T", handler: () => 1 });
    const anonymous = await createHttpHandler(wide, OPTIONS)(call2026(1, "t", {}));
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("www-authenticate")).toBe(
      `Bearer resource_metadata="${METADATA}", scope="mcp files:read", error="invalid_token", error_description="Unauthorized"`,
    );
    // A token without the server's own scopes: every request, lists included, is 403 naming them.
    const list = { jsonrpc: "2.0", id: 2, method: "tools/list", params: { _meta: META } };
    const refused = await createHttpHandler(
      wide,
      OPTIONS,
    )(post(list, { ...headers2026("tools/list"), authorization: "Bearer writer" }));
    expect(refused.status).toBe(403);
    expect(refused.headers.get("www-authenticate")).toContain('scope="mcp files:read"');
  });

  it("without an authenticate hook a scoped tool is refused (403), said once through the server's log", async () => {
    const log: LogEntry[] = [];
    const handle = createHttpHandler(files(log));
    for (const id of [1, 2]) {
      const refused = await handle(call2026(id, "write", { arguments: { path: "a" } }));
      expect(refused.status).toBe(403);
      expect(refused.headers.get("www-authenticate")).toBe(
        'Bearer error="insufficient_scope", scope="files:write", error_description="This operation needs the scopes files:write"',
      );
    }
    expect(log.filter((entry) => entry.level === "warning").map((entry) => entry.message)).toEqual([
      expect.stringMatching(
        /^tool "write" needs the scopes files:write, .*\(transport-http: its authenticate option\)/,
      ),
    ]);
  });

  it("an initialize refused for the server's own scopes is 403, and opens no session", async () => {
    const wide = createServer({ name: "wide", version: "1", scopes: ["mcp"] });
    wide.tool({ name: "t", description: "T", handler: () => 1 });
    const handle = createHttpHandler(wide, OPTIONS);
    const refused = await handle(post(initialize(), { ...H, authorization: "Bearer writer" }));
    expect(refused.status).toBe(403);
    expect(refused.headers.get("www-authenticate")).toContain('scope="mcp"');
    // The id a failed initialize's reply carries names no session.
    const id = refused.headers.get("mcp-session-id") ?? "none";
    const ping = post(
      { jsonrpc: "2.0", id: 2, method: "ping" },
      { ...H, authorization: "Bearer writer", "mcp-session-id": id },
    );
    expect((await handle(ping)).status).toBe(404);
  });
});

describe.each([
  ["handshake era", "legacy" as const],
  ["2026-07-28", { pin: "2026-07-28" as const }],
])("scopes with the official client (%s)", (_era, mode) => {
  let http: HttpServer;
  beforeAll(async () => {
    http = await listen(files(), { port: 0, log: null, ...OPTIONS });
  });
  afterAll(() => http.close());

  async function connect(token: string): Promise<Client> {
    const client = new Client({ name: "scopes", version: "1" }, { versionNegotiation: { mode } });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(http.url), { requestInit: { headers: { authorization: token } } }),
    );
    return client;
  }

  it("a token short of the scope fails the call with the challenge's scopes; one with it is served", async () => {
    const reader = await connect("Bearer reader");
    const writer = await connect("Bearer writer");
    try {
      // Listed to the reader all the same: it may step up.
      expect((await reader.listTools({}, { cacheMode: "bypass" } as never)).tools.map((tool) => tool.name)).toEqual([
        "write",
        "read",
      ]);
      const failed = await reader.callTool({ name: "write", arguments: { path: "a" } }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failed).toBeInstanceOf(InsufficientScopeError);
      expect(failed).toMatchObject({
        requiredScope: "files:write",
        errorDescription: "This operation needs the scopes files:write",
      });
      expect(String((failed as InsufficientScopeError).resourceMetadataUrl)).toBe(
        `${new URL(http.url).origin}/.well-known/oauth-protected-resource/mcp`,
      );
      expect(await reader.callTool({ name: "read", arguments: {} })).toMatchObject({ content: [{ text: "read" }] });
      expect(await writer.callTool({ name: "write", arguments: { path: "a" } })).toMatchObject({
        content: [{ text: "wrote a" }],
      });
    } finally {
      await reader.close();
      await writer.close();
    }
  });
});
