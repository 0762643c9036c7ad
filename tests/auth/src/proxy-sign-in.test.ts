import { Client, StreamableHTTPClientTransport, UnauthorizedError } from "@modelcontextprotocol/client";
import { type OAuthProxy, oauthProxy } from "@toolsmith/auth";
import { createServer } from "@toolsmith/core";
import type { BrowserSignIn } from "@toolsmith/tests-idp";
import { type Idp, launchChromium } from "@toolsmith/tests-idp";
import { type HttpServer, listen } from "@toolsmith/transport-http";
import { decodeJwt } from "jose";
import type { Browser } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { idpUpstream, registerProxy, SECRET, upstreamIdp } from "../../../packages/auth/src/proxy/proxy.test-util.js";
import { observedRoutes, RouteWatch, SignIn } from "./proxy-sign-in.test-util.js";

// Set-up 3, "a server that is its own authorization server in front of an upstream" (oauthProxy), end to end with
// the official client and its OAuthClientProvider: 401, discovery (RFC 9728, then RFC 8414 at the proxy), dynamic
// registration, a person in headless Chromium on OUR consent page then the real OpenID provider's login, the code
// redeemed, calls as that person; a tool needing more scopes: 403 insufficient_scope, the client steps up (the union
// of scopes, the consent page again) and the call succeeds; an expired access token refreshed; a revoked grant ends
// in a new sign-in. Every step is waited for as the proxy's routes see it.

type Mode = "legacy" | { pin: "2026-07-28" };
const ERAS: [string, Mode][] = [
  ["2025-11-25 handshake", "legacy"],
  ["2026-07-28", { pin: "2026-07-28" }],
];
const ACCESS_TTL_SEC = 60;
// jwtVerifier's default clock tolerance, which the proxy's verifier keeps: a token is refused this long after exp.
const TOLERANCE_SEC = 30;

let idp: Idp;
let http: HttpServer;
let auth: OAuthProxy;
let browser: Browser;
const watch = new RouteWatch();

beforeAll(async () => {
  browser = await launchChromium();
  idp = await upstreamIdp();
  // Every request needs notes:read (the 401 names it, so the client asks for it first); one tool needs notes:write.
  const server = createServer({
    name: "proxied-sign-in",
    version: "1.0.0",
    scopes: ["notes:read"],
    logger: () => undefined,
  });
  auth = oauthProxy(server, { upstream: idpUpstream(idp), secret: SECRET, accessTokenTtlSec: ACCESS_TTL_SEC });
  server.tool({
    name: "whoami",
    description: "The caller, and whether the upstream's token for them is reachable.",
    handler: async (_input, ctx) => ({
      subject: ctx.auth?.subject,
      scopes: ctx.auth?.scopes,
      clientId: ctx.auth?.clientId,
      upstream: (await auth.upstreamToken(ctx)).length > 0,
    }),
  });
  server.tool({
    name: "write-note",
    description: "Writes a note: needs notes:write.",
    scopes: ["notes:write"],
    handler: (_input, ctx) => ({ written: true, by: ctx.auth?.subject, scopes: ctx.auth?.scopes }),
  });
  http = await listen(server, { port: 0, log: null, ...auth, routes: observedRoutes(auth.routes, watch.see) });
  await registerProxy(idp, [new URL(http.url).origin]);
}, 120_000);

afterEach(() => {
  vi.useRealTimers();
});

afterAll(async () => {
  await http?.close();
  await idp?.close();
  await browser?.close();
});

/** The client in `mode`, over HTTP, signing in through `provider` . */
function clientOf(mode: Mode, provider: BrowserSignIn) {
  const transport = new StreamableHTTPClientTransport(new URL(http.url), { authProvider: provider });
  const client = new Client({ name: "proxy-sign-in-test", version: "1.0.0" }, { versionNegotiation: { mode } });
  return { client, transport };
}

function structured(result: Awaited<ReturnType<Client["callTool"]>>): Record<string, unknown> {
  return (result.structuredContent ?? JSON.parse((result.content as { text: string }[])[0]?.text ?? "null")) as Record<
    string,
    unknown
  >;
}

/** First call refused, the person signs in (consent + upstream login): a connected client with tokens. */
async function signedIn(mode: Mode, login: string) {
  const provider = new SignIn();
  const first = clientOf(mode, provider);
  const refused = first.client.connect(first.transport).then(() => first.client.listTools());
  await expect(refused).rejects.toBeInstanceOf(UnauthorizedError);
  await first.client.close();
  const callback = await provider.completeIn(first.transport, { login, browser });
  const connected = clientOf(mode, provider);
  await connected.client.connect(connected.transport);
  return { provider, callback, ...connected };
}

describe.each(ERAS)("the official client signs a person in through oauthProxy (%s)", (_era, mode) => {
  it("401, discovery, registration, consent and upstream login in a browser, calls; 403 then step-up", async () => {
    const registrations = watch.count("POST /register");
    const metadataReads = watch.count("GET /.well-known/oauth-authorization-server");
    const { provider, callback, client } = await signedIn(mode, "carol");
    try {
      const origin = new URL(http.url).origin;
      // Discovery found the proxy (RFC 9728 named it, RFC 8414 described it); the client registered (RFC 7591).
      expect(watch.count("GET /.well-known/oauth-authorization-server")).toBeGreaterThan(metadataReads);
      expect(watch.count("POST /register")).toBe(registrations + 1);
      const asked = provider.authorizationUrls[0] as URL;
      expect(asked.origin + asked.pathname).toBe(`${origin}/authorize`);
      expect(Object.fromEntries(asked.searchParams)).toMatchObject({
        client_id: provider.client?.client_id,
        resource: http.url,
        code_challenge_method: "S256",
        response_type: "code",
        scope: "notes:read",
      });
      // RFC 9207: the proxy named itself in the answer, and the client checked it.
      expect(callback.get("iss")).toBe(origin);
      expect(watch.count("GET /oauth/callback")).toBeGreaterThan(0);
      const claims = decodeJwt(provider.saved?.access_token ?? "");
      expect(claims).toMatchObject({ iss: origin, aud: http.url, sub: "carol", scope: "notes:read" });

      expect(structured(await client.callTool({ name: "whoami", arguments: {} }))).toEqual({
        subject: "carol",
        scopes: ["notes:read"],
        clientId: provider.client?.client_id,
        upstream: true,
      });

      // A tool that needs notes:write: 403 insufficient_scope, the client asks again for the union of scopes.
      const stepUp = client.callTool({ name: "write-note", arguments: {} });
      await expect(stepUp).rejects.toBeInstanceOf(UnauthorizedError);
      expect(provider.authorizationUrls).toHaveLength(2);
      const again = provider.lastAuthorizationUrl;
      expect(new Set(again.searchParams.get("scope")?.split(" "))).toEqual(new Set(["notes:read", "notes:write"]));
      await client.close();
      const stepped = await provider.completeIn(clientOf(mode, provider).transport, { login: "carol", browser });
      expect(stepped.get("iss")).toBe(origin);
      expect(
        new Set(
          decodeJwt(provider.saved?.access_token ?? "")
            .scope?.toString()
            .split(" "),
        ),
      ).toEqual(new Set(["notes:read", "notes:write"]));
      const after = clientOf(mode, provider);
      await after.client.connect(after.transport);
      try {
        expect(structured(await after.client.callTool({ name: "write-note", arguments: {} }))).toMatchObject({
          written: true,
          by: "carol",
        });
        // No new registration for the step-up: the same client, one more authorization.
        expect(watch.count("POST /register")).toBe(registrations + 1);
      } finally {
        await after.client.close();
      }
    } finally {
      await client.close();
    }
  });

  it("refreshes an expired access token at the proxy, and a revoked grant sends the person back to sign in", async () => {
    const { provider, client } = await signedIn(mode, "dave");
    try {
      const before = provider.saved;
      expect(structured(await client.callTool({ name: "whoami", arguments: {} }))).toMatchObject({ subject: "dave" });
      // The clock moves past the token's expiry (and the verifier's tolerance): the next call is refused 401, and
      // the client refreshes at the proxy by itself, without a browser.
      const refreshed = watch.next((seen) => seen.route === "POST /token" && seen.grantType === "refresh_token");
      vi.setSystemTime(Date.now() + (ACCESS_TTL_SEC + TOLERANCE_SEC + 5) * 1000);
      expect(structured(await client.callTool({ name: "whoami", arguments: {} }))).toMatchObject({
        subject: "dave",
        upstream: true,
      });
      await refreshed;
      expect(provider.saved?.access_token).not.toBe(before?.access_token);
      expect(provider.saved?.refresh_token).not.toBe(before?.refresh_token);
      expect(provider.authorizationUrls).toHaveLength(1);

      // The application signs the person out: RFC 7009 at the proxy's revocation endpoint, its refresh token.
      const revoked = await fetch(`${new URL(http.url).origin}/revoke`, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          token: provider.saved?.refresh_token ?? "",
          client_id: provider.client?.client_id ?? "",
        }),
      });
      expect(revoked.status).toBe(200);
      // The access token still verifies until it expires, but the grant behind it (the upstream's token) is gone.
      const cut = await client.callTool({ name: "whoami", arguments: {} });
      expect(cut.isError).toBe(true);
      // Once it expires, the refresh is refused (invalid_grant) and the client asks for a new authorization.
      const refused = watch.next((seen) => seen.route === "POST /token" && seen.grantType === "refresh_token");
      // The official client tells the console of the refused refresh: heard here, as what it saw.
      const warned = vi.spyOn(console, "warn").mockImplementation(() => undefined);
      vi.setSystemTime(Date.now() + (ACCESS_TTL_SEC + TOLERANCE_SEC + 5) * 1000);
      await expect(client.callTool({ name: "whoami", arguments: {} })).rejects.toBeInstanceOf(UnauthorizedError);
      await refused;
      expect(warned.mock.calls.map(String)).toEqual([expect.stringContaining('"invalid_grant"')]);
      warned.mockRestore();
      expect(provider.saved).toBeUndefined();
      expect(provider.authorizationUrls).toHaveLength(2);
    } finally {
      await client.close();
    }
  });
});

it("met no error on the upstream's side", () => {
  expect(idp.serverErrors).toEqual([]);
});
