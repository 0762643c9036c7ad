import { Client, StreamableHTTPClientTransport, UnauthorizedError } from "@modelcontextprotocol/client";
import { jwtVerifier, type Verifier } from "@toolsmith/auth";
import { createServer } from "@toolsmith/core";
import { BrowserSignIn, type Idp, launchChromium, startIdp } from "@toolsmith/tests-idp";
import { type HttpServer, listen } from "@toolsmith/transport-http";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";

// Set-up 1, "a server behind an identity provider that already issues tokens": the server verifies the IdP's JWT
// access tokens (jwtVerifier) and names the IdP in its protected-resource metadata; the official client finds it
// there, registers, sends a person through the IdP's pages in headless Chromium and calls with the token it gets.

type Mode = "legacy" | { pin: "2026-07-28" };
const ERAS: [string, Mode][] = [
  ["2025-11-25 handshake", "legacy"],
  ["2026-07-28", { pin: "2026-07-28" }],
];

let idp: Idp;
let server: HttpServer;
let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
  idp = await startIdp({
    scopes: ["notes:read", "notes:write"],
    clients: [
      { client_id: "robot", client_secret: "robot-secret", grant_types: ["client_credentials"], response_types: [] },
    ],
  });
  // Every request needs notes:read (the 401 names it, so that is what a client asks for first); add_note needs more.
  const mcp = createServer({ name: "behind-an-idp", version: "1.0.0", scopes: ["notes:read"] });
  mcp.tool({
    name: "whoami",
    description: "Who the caller is, as the token says.",
    handler: (_input, ctx) => ({ subject: ctx.auth?.subject, scopes: ctx.auth?.scopes, clientId: ctx.auth?.clientId }),
  });
  mcp.tool({
    name: "add_note",
    description: "Write a note: needs notes:write.",
    scopes: ["notes:write"],
    input: { text: z.string() },
    handler: ({ text }, ctx) => ({ by: ctx.auth?.subject, text }),
  });
  // The audience is this server's resource URL, known once it listens.
  let verify: Verifier = async () => undefined;
  server = await listen(mcp, {
    port: 0,
    log: null,
    authenticate: (request) => verify(request),
    resourceMetadata: { authorizationServers: [idp.issuer] },
  });
  verify = jwtVerifier({ issuer: idp.issuer, audience: server.url });
});

afterAll(async () => {
  await server?.close();
  await idp?.close();
  await browser?.close();
});

/** A client of the official SDK in `mode`, over HTTP, signing in through `provider`. */
function clientOf(mode: Mode, provider: BrowserSignIn) {
  const transport = new StreamableHTTPClientTransport(new URL(server.url), { authProvider: provider });
  const client = new Client({ name: "sign-in-test", version: "1.0.0" }, { versionNegotiation: { mode } });
  return { client, transport };
}

async function whoami(client: Client) {
  const result = await client.callTool({ name: "whoami", arguments: {} });
  return result.structuredContent ?? JSON.parse((result.content as { text: string }[])[0]?.text ?? "null");
}

describe("a server that names its identity provider, before sign-in", () => {
  it("answers 401 with a challenge naming its metadata, which names the IdP and the scopes", async () => {
    const response = await fetch(server.url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
    });
    expect(response.status).toBe(401);
    const challenge = response.headers.get("www-authenticate") ?? "";
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge)?.[1] ?? "";
    expect(metadataUrl).toBe(`${new URL(server.url).origin}/.well-known/oauth-protected-resource/mcp`);
    expect(await (await fetch(metadataUrl)).json()).toMatchObject({
      resource: server.url,
      authorization_servers: [idp.issuer],
      scopes_supported: ["notes:read", "notes:write"],
    });
    expect(challenge).toContain('scope="notes:read"');
  });

  it("refuses a token the IdP issued for another resource, and takes one issued for it", async () => {
    const robot = { clientId: "robot", clientSecret: "robot-secret" };
    const other = await idp.clientCredentialsToken({ ...robot, resource: "http://127.0.0.1:1/mcp" });
    const refused = await fetch(server.url, {
      method: "POST",
      headers: { authorization: `Bearer ${other}`, "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
    });
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toContain('error="invalid_token"');

    const own = await idp.clientCredentialsToken({ ...robot, resource: server.url, scope: "notes:read" });
    const transport = new StreamableHTTPClientTransport(new URL(server.url), {
      authProvider: { token: async () => own },
    });
    const client = new Client(
      { name: "robot", version: "1.0.0" },
      { versionNegotiation: { mode: { pin: "2026-07-28" } } },
    );
    try {
      await client.connect(transport);
      expect(await whoami(client)).toMatchObject({ subject: "robot", scopes: ["notes:read"], clientId: "robot" });
    } finally {
      await client.close();
    }
  });
});

describe.each(ERAS)("the official client signs a person in through the IdP (%s)", (_era, mode) => {
  it("401, discovery, registration, the IdP's pages in a browser, a token, then calls succeed as that person", async () => {
    const provider = new BrowserSignIn();
    const first = clientOf(mode, provider);
    const refused = first.client.connect(first.transport).then(() => first.client.listTools());
    await expect(refused).rejects.toBeInstanceOf(UnauthorizedError);
    await first.client.close();

    // Discovery led to the IdP; the client registered there (RFC 7591) and asked for this server's resource, PKCE.
    expect(provider.client?.client_id).toEqual(expect.any(String));
    const asked = provider.lastAuthorizationUrl;
    expect(asked.origin + asked.pathname).toBe(`${idp.issuer}/auth`);
    expect(Object.fromEntries(asked.searchParams)).toMatchObject({
      resource: server.url,
      code_challenge_method: "S256",
      scope: "notes:read offline_access",
      prompt: "consent",
      response_type: "code",
    });

    const callback = await provider.completeIn(first.transport, { login: "alice", browser });
    expect(callback.get("iss")).toBe(idp.issuer);
    expect(provider.saved?.access_token).toEqual(expect.any(String));

    const second = clientOf(mode, provider);
    try {
      await second.client.connect(second.transport);
      expect((await second.client.listTools()).tools.map((tool) => tool.name)).toEqual(["whoami", "add_note"]);
      expect(await whoami(second.client)).toMatchObject({
        subject: "alice",
        scopes: ["notes:read"],
        clientId: provider.client?.client_id,
      });
    } finally {
      await second.client.close();
    }
  });

  it("steps up when a tool needs a scope the token lacks: 403, the IdP's pages again, then the call succeeds", async () => {
    const provider = new BrowserSignIn();
    const first = clientOf(mode, provider);
    await expect(first.client.connect(first.transport).then(() => first.client.listTools())).rejects.toBeInstanceOf(
      UnauthorizedError,
    );
    await first.client.close();
    await provider.completeIn(first.transport, { login: "erin", browser });

    const { client, transport } = clientOf(mode, provider);
    try {
      await client.connect(transport);
      expect(await whoami(client)).toMatchObject({ scopes: ["notes:read"] });
      // 403 insufficient_scope naming every scope add_note needs: the client asks the IdP for them.
      await expect(client.callTool({ name: "add_note", arguments: { text: "hello" } })).rejects.toBeInstanceOf(
        UnauthorizedError,
      );
      expect(provider.authorizationUrls).toHaveLength(2);
      expect(provider.lastAuthorizationUrl.searchParams.get("scope")?.split(" ").sort()).toEqual([
        "notes:read",
        "notes:write",
        "offline_access",
      ]);
      await provider.completeIn(transport, { login: "erin", browser });
      const written = await client.callTool({ name: "add_note", arguments: { text: "hello" } });
      expect(written.structuredContent).toEqual({ by: "erin", text: "hello" });
      expect((await whoami(client)).scopes.sort()).toEqual(["notes:read", "notes:write"]);
    } finally {
      await client.close();
    }
  });

  it("refreshes with the IdP's refresh token when the server stops taking the access token", async () => {
    const provider = new BrowserSignIn();
    const first = clientOf(mode, provider);
    await expect(first.client.connect(first.transport).then(() => first.client.listTools())).rejects.toBeInstanceOf(
      UnauthorizedError,
    );
    await first.client.close();
    await provider.completeIn(first.transport, { login: "bob", browser });
    const { access_token, refresh_token } = provider.saved ?? {};
    expect(refresh_token).toEqual(expect.any(String));
    // A token the server refuses (as an expired one would be): the client refreshes without a browser.
    provider.saveTokens({ ...(provider.saved ?? { token_type: "Bearer" }), access_token: "not-a-token" } as never);

    const second = clientOf(mode, provider);
    try {
      await second.client.connect(second.transport);
      expect(await whoami(second.client)).toMatchObject({ subject: "bob" });
      expect(provider.saved?.access_token).not.toBe(access_token);
      expect(provider.authorizationUrls).toHaveLength(1);
    } finally {
      await second.client.close();
    }
  });
});

describe("when the IdP is down", () => {
  it("a server that has its keys goes on; one that has none answers 503 with Retry-After, never 401", async () => {
    const logged: string[] = [];
    const mcp = createServer({
      name: "keys-not-yet-fetched",
      version: "1.0.0",
      logger: (entry) => logged.push(`${entry.level}: ${entry.message}`),
    });
    mcp.tool({ name: "whoami", description: "Who calls.", handler: (_input, ctx) => ({ subject: ctx.auth?.subject }) });
    let verify: Verifier = async () => undefined;
    const fresh = await listen(mcp, {
      port: 0,
      log: null,
      authenticate: (request) => verify(request),
      resourceMetadata: { authorizationServers: [idp.issuer] },
    });
    // A millisecond of backoff after a failure (default 5 s): over by the time the IdP is back, so nothing waits.
    verify = jwtVerifier({ issuer: idp.issuer, audience: fresh.url, retryAfterSec: 0.001 });
    const robot = { clientId: "robot", clientSecret: "robot-secret" };
    const forFresh = await idp.clientCredentialsToken({ ...robot, resource: fresh.url });
    const forServer = await idp.clientCredentialsToken({ ...robot, resource: server.url, scope: "notes:read" });
    const signedIn = async (url: string, token: string) => {
      const transport = new StreamableHTTPClientTransport(new URL(url), { authProvider: { token: async () => token } });
      const client = new Client({ name: "robot", version: "1.0.0" }, { versionNegotiation: { mode: "legacy" } });
      await client.connect(transport);
      return client;
    };
    // Connecting to the shared server verifies a token: it fetches and holds the IdP's keys.
    const before = await signedIn(server.url, forServer);
    await idp.stop();
    try {
      const refused = await fetch(fresh.url, {
        method: "POST",
        headers: { authorization: `Bearer ${forFresh}`, "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
      });
      expect(refused.status).toBe(503);
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(refused.headers.get("www-authenticate")).toBeNull();
      expect(await whoami(before)).toMatchObject({ subject: "robot" });
      expect(logged).toEqual([expect.stringMatching(/^warning: .*identity provider could not be reached/)]);
    } finally {
      await idp.start();
      await before.close();
    }
    const after = await signedIn(fresh.url, forFresh);
    try {
      expect(await whoami(after)).toEqual({ subject: "robot" });
    } finally {
      await after.close();
      await fresh.close();
    }
  });
});

it("met no error on the IdP's side", () => {
  expect(idp.serverErrors).toEqual([]);
});
