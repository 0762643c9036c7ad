import {
  Client,
  InsufficientScopeError,
  StreamableHTTPClientTransport,
  UnauthorizedError,
} from "@modelcontextprotocol/client";
import { jwtVerifier, type Verifier } from "@toolsmith/auth";
import { createServer, type RequestContext, type Server } from "@toolsmith/core";
import { BrowserSignIn, type Idp, launchChromium, startIdp } from "@toolsmith/tests-idp";
import { type HttpServer, listen } from "@toolsmith/transport-http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";

// Scopes through the search surface, with tokens a real identity provider issues (tests/idp): search shows what the
// caller's tools/list would (a scoped tool is listed, decision 8; a guard hides), and call_tool answers as tools/call
// does: 403 insufficient_scope for a tool the token lacks a scope for (the official client steps up and retries),
// "not found" for a tool a guard hides, word for word as for a tool that does not exist.

type Mode = "legacy" | { pin: "2026-07-28" };
const ERAS: [string, Mode][] = [
  ["2025-11-25 handshake", "legacy"],
  ["2026-07-28", { pin: "2026-07-28" }],
];

const writes = (ctx: RequestContext) => ctx.auth?.scopes.includes("notes:write") === true;

function notes(toolSearch: boolean): Server {
  const server = createServer({ name: "notes", version: "1", scopes: ["notes:read"], toolSearch });
  server.tool({ name: "read_notes", description: "Read the notes", handler: () => "the notes" });
  server.tool({
    name: "add_note",
    description: "Write one more note to the notes",
    scopes: ["notes:write"],
    input: { text: z.string() },
    handler: ({ text }, ctx) => `${ctx.auth?.subject} wrote ${text}`,
  });
  server.tool({
    name: "purge_notes",
    description: "Delete every note of the notes",
    guard: writes,
    handler: () => "purged",
  });
  return server;
}

let idp: Idp;
let browser: Awaited<ReturnType<typeof launchChromium>>;
const served: HttpServer[] = [];

async function serve(server: Server): Promise<HttpServer> {
  let verify: Verifier = async () => undefined;
  const http = await listen(server, {
    port: 0,
    log: null,
    authenticate: (request) => verify(request),
    resourceMetadata: { authorizationServers: [idp.issuer] },
  });
  verify = jwtVerifier({ issuer: idp.issuer, audience: http.url });
  served.push(http);
  return http;
}

beforeAll(async () => {
  browser = await launchChromium();
  idp = await startIdp({
    scopes: ["notes:read", "notes:write"],
    clients: [
      { client_id: "robot", client_secret: "robot-secret", grant_types: ["client_credentials"], response_types: [] },
    ],
  });
});

afterAll(async () => {
  for (const http of served) await http.close();
  await idp?.close();
  await browser?.close();
});

describe.each(ERAS)("scopes through the search surface (%s)", (_era, mode) => {
  let surface: HttpServer;
  let plain: HttpServer;

  beforeAll(async () => {
    surface = await serve(notes(true));
    plain = await serve(notes(false));
  });

  /** The official client with a robot's token for `http` holding `scope`. */
  async function robot(http: HttpServer, scope: string): Promise<Client> {
    const token = await idp.clientCredentialsToken({
      clientId: "robot",
      clientSecret: "robot-secret",
      resource: http.url,
      scope,
    });
    const transport = new StreamableHTTPClientTransport(new URL(http.url), {
      authProvider: { token: async () => token },
    });
    const client = new Client({ name: "robot", version: "1" }, { versionNegotiation: { mode } });
    await client.connect(transport);
    return client;
  }

  async function searched(client: Client): Promise<string[]> {
    const result = await client.callTool({ name: "search_tools", arguments: { query: "notes", limit: 20 } });
    const text = (result.content as { text: string }[])[0]?.text ?? "";
    return (JSON.parse(text) as { tools: { name: string }[] }).tools.map((tool) => tool.name).sort();
  }

  const failure = (call: Promise<unknown>) =>
    call.then(
      () => undefined,
      (error: unknown) => error,
    );

  it("finds what the caller's tools/list shows: a scoped tool is found, a guarded one only for whom its guard lets see it", async () => {
    for (const scope of ["notes:read", "notes:read notes:write"]) {
      const listing = await robot(plain, scope);
      const searching = await robot(surface, scope);
      try {
        const listed = (await listing.listTools()).tools.map((tool) => tool.name).sort();
        expect(listed).toEqual(
          scope === "notes:read" ? ["add_note", "read_notes"] : ["add_note", "purge_notes", "read_notes"],
        );
        expect(await searched(searching)).toEqual(listed);
      } finally {
        await listing.close();
        await searching.close();
      }
    }
  });

  it("answers call_tool of a tool the token lacks a scope for as tools/call does: 403 insufficient_scope naming it", async () => {
    const reader = await robot(surface, "notes:read");
    const writer = await robot(surface, "notes:read notes:write");
    try {
      const refused = await failure(
        reader.callTool({ name: "call_tool", arguments: { name: "add_note", arguments: { text: "hi" } } }),
      );
      expect(refused).toBeInstanceOf(InsufficientScopeError);
      expect(refused).toMatchObject({ requiredScope: "notes:read notes:write" });
      const direct = await failure(reader.callTool({ name: "add_note", arguments: { text: "hi" } }));
      expect(String(refused)).toBe(String(direct));
      const written = await writer.callTool({
        name: "call_tool",
        arguments: { name: "add_note", arguments: { text: "hi" } },
      });
      expect(written.content).toEqual([{ type: "text", text: "robot wrote hi" }]);
    } finally {
      await reader.close();
      await writer.close();
    }
  });

  it("answers call_tool of a tool a guard hides from the caller exactly as one that does not exist", async () => {
    const reader = await robot(surface, "notes:read");
    const writer = await robot(surface, "notes:read notes:write");
    try {
      const hidden = await failure(reader.callTool({ name: "call_tool", arguments: { name: "purge_notes" } }));
      const missing = await failure(reader.callTool({ name: "call_tool", arguments: { name: "purge_nope" } }));
      expect(String(hidden).replace("purge_notes", "X")).toBe(String(missing).replace("purge_nope", "X"));
      expect((hidden as { code?: number }).code).toBe((missing as { code?: number }).code);
      expect(String(hidden)).not.toMatch(/scope|guard|forbidden/i);
      const purged = await writer.callTool({ name: "call_tool", arguments: { name: "purge_notes" } });
      expect(purged.content).toEqual([{ type: "text", text: "purged" }]);
    } finally {
      await reader.close();
      await writer.close();
    }
  });

  it("a person's client steps up on call_tool's 403: the IdP's pages again, then the same call succeeds", async () => {
    const provider = new BrowserSignIn();
    const connect = () => {
      const transport = new StreamableHTTPClientTransport(new URL(surface.url), { authProvider: provider });
      const client = new Client({ name: "person", version: "1" }, { versionNegotiation: { mode } });
      return { client, transport };
    };
    const first = connect();
    await expect(first.client.connect(first.transport).then(() => first.client.listTools())).rejects.toBeInstanceOf(
      UnauthorizedError,
    );
    await first.client.close();
    await provider.completeIn(first.transport, { login: "erin", browser });
    const { client, transport } = connect();
    try {
      await client.connect(transport);
      const call = () =>
        client.callTool({ name: "call_tool", arguments: { name: "add_note", arguments: { text: "hi" } } });
      await expect(call()).rejects.toBeInstanceOf(UnauthorizedError);
      expect(provider.lastAuthorizationUrl.searchParams.get("scope")?.split(" ").sort()).toEqual([
        "notes:read",
        "notes:write",
        "offline_access",
      ]);
      await provider.completeIn(transport, { login: "erin", browser });
      expect((await call()).content).toEqual([{ type: "text", text: "erin wrote hi" }]);
    } finally {
      await client.close();
    }
  });
});
