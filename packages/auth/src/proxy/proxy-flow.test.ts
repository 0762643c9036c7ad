import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { type Idp, launchChromium, signInWithChromium, startIdp } from "@toolsmith/tests-idp";
import { decodeJwt } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  authorizeFor,
  authorizeUrl,
  exchangeCode,
  idpUpstream,
  type Proxied,
  pkce,
  postForm,
  REDIRECT,
  registerClient,
  registerProxy,
  startProxied,
  startSignIn,
} from "./proxy.test-util.js";

// The whole sign-in, as an MCP client and a person do it: the client registers, a person approves our consent page
// and signs in at a real OpenID provider in headless Chromium, the client exchanges the code, calls a tool that
// reaches the upstream's token, refreshes, and is cut off when a refresh token or a code is used twice.

let idp: Idp;
let proxied: Proxied;
let browser: Awaited<ReturnType<typeof launchChromium>>;
let clientId: string;

beforeAll(async () => {
  ({ idp, proxied, clientId } = await startSignIn({ scopes: ["notes:read", "notes:write"] }));
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await proxied?.http.close();
  await idp?.close();
});

/** A person signs in through the proxy in Chromium: the parameters the client's redirect URI was given. */
async function signIn(scope = "notes:read") {
  const client = await pkce();
  const url = authorizeFor(proxied.origin, clientId, client, { scope, resource: `${proxied.origin}/mcp` });
  const back = new URL(await signInWithChromium(url, { browser }));
  return { params: back.searchParams, back, ...client };
}

const exchange = (code: string, verifier: string, extra: Record<string, string> = {}) =>
  exchangeCode(proxied.origin, clientId, code, verifier, extra);

const refresh = (token: string) =>
  postForm(`${proxied.origin}/token`, { grant_type: "refresh_token", refresh_token: token, client_id: clientId });

async function whoami(accessToken: string) {
  const client = new Client({ name: "proxy-flow", version: "1" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${proxied.origin}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${accessToken}` } },
    }),
  );
  try {
    return await client.callTool({ name: "whoami", arguments: {} });
  } finally {
    await client.close();
  }
}

describe("the OAuth proxy in front of a real OpenID provider", () => {
  it("publishes RFC 8414 metadata, and the resource's metadata names it", async () => {
    const metadata = await (await fetch(`${proxied.origin}/.well-known/oauth-authorization-server`)).json();
    expect(metadata).toMatchObject({
      issuer: proxied.origin,
      authorization_endpoint: `${proxied.origin}/authorize`,
      token_endpoint: `${proxied.origin}/token`,
      revocation_endpoint: `${proxied.origin}/revoke`,
      registration_endpoint: `${proxied.origin}/register`,
      jwks_uri: `${proxied.origin}/.well-known/jwks.json`,
      code_challenge_methods_supported: ["S256"],
      authorization_response_iss_parameter_supported: true,
      client_id_metadata_document_supported: true,
      scopes_supported: ["notes:read", "notes:write", "offline_access"],
      grant_types_supported: ["authorization_code", "refresh_token"],
      token_endpoint_auth_methods_supported: ["none", "client_secret_basic", "client_secret_post"],
    });
    const resource = await (await fetch(`${proxied.origin}/.well-known/oauth-protected-resource/mcp`)).json();
    expect(resource).toMatchObject({ resource: `${proxied.origin}/mcp`, authorization_servers: [proxied.origin] });
    const jwks = (await (await fetch(`${proxied.origin}/.well-known/jwks.json`)).json()) as { keys: object[] };
    expect(jwks.keys).toEqual([expect.objectContaining({ kty: "EC", crv: "P-256", alg: "ES256" })]);
    expect(JSON.stringify(jwks)).not.toContain('"d"');
  });

  it("signs a person in, issues tokens bound to the resource, and a tool reaches the upstream's token", async () => {
    const { params, state, verifier } = await signIn("notes:read");
    expect([params.get("state"), params.get("iss"), params.get("error")]).toEqual([state, proxied.origin, null]);
    const issued = await exchange(params.get("code") ?? "", verifier);
    expect(issued.status).toBe(200);
    expect(issued.headers.get("cache-control")).toBe("no-store");
    expect(issued.body).toMatchObject({ token_type: "Bearer", expires_in: 3600, scope: "notes:read" });
    const claims = decodeJwt(issued.body.access_token ?? "");
    expect(claims).toMatchObject({
      iss: proxied.origin,
      aud: `${proxied.origin}/mcp`,
      sub: "alice",
      client_id: clientId,
      scope: "notes:read",
    });
    expect([typeof claims.exp, typeof claims.jti, typeof claims.grant]).toEqual(["number", "string", "string"]);
    // The upstream's tokens never reach the client: only ours are in the answer.
    expect(Object.keys(issued.body).sort()).toEqual([
      "access_token",
      "expires_in",
      "refresh_token",
      "scope",
      "token_type",
    ]);
    const result = await whoami(issued.body.access_token ?? "");
    const told = JSON.parse((result.content as { text: string }[])[0]?.text ?? "{}");
    expect(told).toMatchObject({ subject: "alice", scopes: ["notes:read"] });
    expect(told.upstream).toBeGreaterThan(0);
    // Without a token: 401, pointing at the resource's metadata.
    const refused = await fetch(`${proxied.origin}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
    });
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toContain(
      `resource_metadata="${proxied.origin}/.well-known/oauth-protected-resource/mcp"`,
    );
  }, 60_000);

  it("rotates refresh tokens, and one used twice revokes the whole grant (its upstream token too)", async () => {
    const { params, verifier } = await signIn();
    const first = await exchange(params.get("code") ?? "", verifier);
    const second = await refresh(first.body.refresh_token ?? "");
    expect(second.status).toBe(200);
    expect(second.headers.get("cache-control")).toBe("no-store");
    expect(second.body.refresh_token).not.toBe(first.body.refresh_token);
    const reused = await refresh(first.body.refresh_token ?? "");
    expect([reused.status, reused.body.error]).toEqual([400, "invalid_grant"]);
    const after = await refresh(second.body.refresh_token ?? "");
    expect([after.status, after.body.error]).toEqual([400, "invalid_grant"]);
    // The access token still verifies until it expires, but its grant, and the upstream's token, are gone.
    const result = await whoami(second.body.access_token ?? "");
    expect(result.isError).toBe(true);
    expect(proxied.logged.some((entry) => entry.message.includes("a refresh token was used twice"))).toBe(true);
  }, 60_000);

  it("refuses a refresh asking for more scope or another resource without using its token up", async () => {
    const { params, verifier } = await signIn("notes:read");
    const { body } = await exchange(params.get("code") ?? "", verifier);
    const token = body.refresh_token ?? "";
    const wider = await postForm(`${proxied.origin}/token`, {
      grant_type: "refresh_token",
      refresh_token: token,
      client_id: clientId,
      scope: "notes:write",
    });
    expect([wider.status, wider.body.error]).toEqual([400, "invalid_scope"]);
    const elsewhere = await postForm(`${proxied.origin}/token`, {
      grant_type: "refresh_token",
      refresh_token: token,
      client_id: clientId,
      resource: "https://other.example/mcp",
    });
    expect([elsewhere.status, elsewhere.body.error]).toEqual([400, "invalid_target"]);
    // The client's corrected retry is not a reuse: it rotates as usual.
    const retried = await refresh(token);
    expect(retried.status).toBe(200);
    expect(retried.body.scope).toBe("notes:read");
  }, 60_000);

  it("takes a code once: a second use is invalid_grant and revokes what the first issued", async () => {
    const { params, verifier } = await signIn();
    const code = params.get("code") ?? "";
    const first = await exchange(code, verifier);
    expect(first.status).toBe(200);
    const again = await exchange(code, verifier);
    expect([again.status, again.body.error]).toEqual([400, "invalid_grant"]);
    expect(again.headers.get("cache-control")).toBe("no-store");
    const refreshed = await refresh(first.body.refresh_token ?? "");
    expect([refreshed.status, refreshed.body.error]).toEqual([400, "invalid_grant"]);
  }, 60_000);

  it("binds a code to its PKCE verifier, its redirect URI and its client", async () => {
    const wrongVerifier = await signIn();
    const other = await pkce();
    const refused = await exchange(wrongVerifier.params.get("code") ?? "", other.verifier);
    expect([refused.status, refused.body.error]).toEqual([400, "invalid_grant"]);
    const wrongRedirect = await signIn();
    const moved = await exchange(wrongRedirect.params.get("code") ?? "", wrongRedirect.verifier, {
      redirect_uri: `${REDIRECT}x`,
    });
    expect([moved.status, moved.body.error]).toEqual([400, "invalid_grant"]);
    const wrongClient = await signIn();
    const otherClient = await registerClient(proxied.origin, REDIRECT);
    const stolen = await exchange(wrongClient.params.get("code") ?? "", wrongClient.verifier, {
      client_id: otherClient,
    });
    expect([stolen.status, stolen.body.error]).toEqual([400, "invalid_grant"]);
    const noVerifier = await exchange("whatever", "");
    expect([noVerifier.status, noVerifier.body.error]).toEqual([400, "invalid_request"]);
  }, 120_000);

  it("answers the token endpoint's other refusals with the RFC's status and error", async () => {
    const url = `${proxied.origin}/token`;
    const unsupported = await postForm(url, { grant_type: "password", client_id: clientId });
    expect([unsupported.status, unsupported.body.error]).toEqual([400, "unsupported_grant_type"]);
    const unknown = await postForm(url, { grant_type: "authorization_code", code: "x", client_id: "nobody" });
    expect([unknown.status, unknown.body.error]).toEqual([401, "invalid_client"]);
    const malformed = await postForm(
      url,
      { grant_type: "refresh_token", refresh_token: "x" },
      {
        authorization: `Basic ${Buffer.from("%E0%A4%A:secret").toString("base64")}`,
      },
    );
    expect([malformed.status, malformed.body.error]).toEqual([401, "invalid_client"]);
    expect(malformed.headers.get("www-authenticate")).toBe('Basic realm="token"');
    // Not base64, and no colon: the same 401 naming Basic, not a request without a client.
    for (const credentials of ["!!!@@@", Buffer.from(clientId).toString("base64")]) {
      const garbled = await postForm(
        url,
        { grant_type: "refresh_token", refresh_token: "x" },
        { authorization: `Basic ${credentials}` },
      );
      expect([garbled.status, garbled.body.error]).toEqual([401, "invalid_client"]);
      expect(garbled.headers.get("www-authenticate")).toBe('Basic realm="token"');
    }
    const forged = await postForm(url, { grant_type: "refresh_token", refresh_token: "forged", client_id: clientId });
    expect([forged.status, forged.body.error]).toEqual([400, "invalid_grant"]);
    const twice = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: `grant_type=refresh_token&grant_type=authorization_code&client_id=${clientId}`,
    });
    expect([twice.status, ((await twice.json()) as { error: string }).error]).toEqual([400, "invalid_request"]);
  });

  it("revokes a grant by its refresh token (RFC 7009), and answers 200 for a token it does not know", async () => {
    const { params, verifier } = await signIn();
    const issued = await exchange(params.get("code") ?? "", verifier);
    const revoked = await postForm(`${proxied.origin}/revoke`, {
      token: issued.body.refresh_token ?? "",
      client_id: clientId,
    });
    expect(revoked.status).toBe(200);
    const refreshed = await refresh(issued.body.refresh_token ?? "");
    expect([refreshed.status, refreshed.body.error]).toEqual([400, "invalid_grant"]);
    const unknown = await postForm(`${proxied.origin}/revoke`, { token: "never-issued", client_id: clientId });
    expect(unknown.status).toBe(200);
  }, 60_000);

  it("refreshes the upstream's token for a tool when it has expired, without the client knowing", async () => {
    const shortLived = await startIdp({ scopes: ["openid", "profile", "email"], accessTokenTtlSec: 10 });
    const other = await startProxied({ upstream: idpUpstream(shortLived) });
    try {
      await registerProxy(shortLived, [other.origin]);
      other.server.tool({
        name: "upstream-token",
        description: "The upstream's token (for this test only)",
        handler: (_args, ctx) => other.auth.upstreamToken(ctx),
      });
      const client = await registerClient(other.origin, REDIRECT);
      const { verifier, challenge, state } = await pkce();
      const url = authorizeUrl(other.origin, {
        response_type: "code",
        client_id: client,
        redirect_uri: REDIRECT,
        code_challenge: challenge,
        code_challenge_method: "S256",
        state,
      });
      const back = new URL(await signInWithChromium(url, { browser }));
      const issued = await postForm(`${other.origin}/token`, {
        grant_type: "authorization_code",
        code: back.searchParams.get("code") ?? "",
        redirect_uri: REDIRECT,
        client_id: client,
        code_verifier: verifier,
      });
      const mcp = new Client({ name: "refresh", version: "1" });
      await mcp.connect(
        new StreamableHTTPClientTransport(new URL(`${other.origin}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${issued.body.access_token}` } },
        }),
      );
      const read = async () =>
        ((await mcp.callTool({ name: "upstream-token", arguments: {} })).content as { text: string }[])[0]?.text;
      // Ten seconds is within the proxy's margin: each call finds it expired, and refreshes it at the provider.
      const first = await read();
      const second = await read();
      await mcp.close();
      expect(first?.length).toBeGreaterThan(10);
      expect(second?.length).toBeGreaterThan(10);
      expect(second).not.toBe(first);
    } finally {
      await other.http.close();
      await shortLived.close();
    }
  }, 120_000);
});
