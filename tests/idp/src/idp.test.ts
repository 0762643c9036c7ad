import {
  discoverAuthorizationServerMetadata,
  exchangeAuthorization,
  refreshAuthorization,
  registerClient,
  startAuthorization,
} from "@modelcontextprotocol/client";
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from "jose";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium, signInWithChromium } from "./chromium.js";
import { type Idp, startIdp } from "./idp.js";

// A loopback redirect URI nobody listens on: the browser is stopped when it is sent there.
const REDIRECT = "http://127.0.0.1:9/callback";
const RESOURCE = "http://127.0.0.1:9/mcp";

let idp: Idp;
let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
  idp = await startIdp({
    scopes: ["notes:read", "notes:write"],
    clients: [
      {
        client_id: "proxy",
        client_secret: "proxy-secret",
        redirect_uris: [REDIRECT],
        grant_types: ["authorization_code", "refresh_token", "client_credentials"],
      },
    ],
  });
});

afterAll(async () => {
  await idp?.close();
  await browser?.close();
});

/** A client registered dynamically (RFC 7591) by the official client's own function. */
async function registered() {
  const metadata = await discoverAuthorizationServerMetadata(idp.issuer);
  const client = await registerClient(idp.issuer, {
    metadata,
    clientMetadata: {
      redirect_uris: [REDIRECT],
      client_name: "fixture test",
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    },
  });
  return { metadata, client };
}

describe("the development OpenID provider", () => {
  it("publishes metadata for PKCE S256, registration, resource indicators, introspection, revocation and iss", async () => {
    const metadata = await discoverAuthorizationServerMetadata(idp.issuer);
    expect(metadata?.issuer).toBe(idp.issuer);
    expect(idp.issuer).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(metadata?.code_challenge_methods_supported).toEqual(["S256"]);
    expect(metadata?.registration_endpoint).toBe(`${idp.issuer}/reg`);
    expect(metadata?.jwks_uri).toBe(idp.jwksUri);
    expect(metadata?.grant_types_supported).toEqual(expect.arrayContaining(["authorization_code", "refresh_token"]));
    expect(metadata).toMatchObject({
      introspection_endpoint: `${idp.issuer}/token/introspection`,
      revocation_endpoint: `${idp.issuer}/token/revocation`,
      authorization_response_iss_parameter_supported: true,
      client_id_metadata_document_supported: true,
    });
  });

  it("signs a person in through its pages and issues a JWT for the resource, a refresh token and working introspection", async () => {
    const { metadata, client } = await registered();
    const { authorizationUrl, codeVerifier } = await startAuthorization(idp.issuer, {
      metadata,
      clientInformation: client,
      redirectUrl: REDIRECT,
      scope: "notes:read offline_access",
      state: "s1",
      resource: RESOURCE,
    });
    const landed = new URL(await signInWithChromium(authorizationUrl.href, { browser, login: "alice" }));
    expect(landed.searchParams.get("state")).toBe("s1");
    expect(landed.searchParams.get("iss")).toBe(idp.issuer);
    const tokens = await exchangeAuthorization(idp.issuer, {
      metadata,
      clientInformation: client,
      authorizationCode: landed.searchParams.get("code") ?? "",
      iss: landed.searchParams.get("iss") ?? "",
      codeVerifier,
      redirectUri: REDIRECT,
      resource: RESOURCE,
    });
    expect(tokens.refresh_token).toEqual(expect.any(String));
    const jwks = createRemoteJWKSet(new URL(idp.jwksUri));
    const { payload, protectedHeader } = await jwtVerify(tokens.access_token, jwks, {
      issuer: idp.issuer,
      audience: RESOURCE,
    });
    expect(protectedHeader).toMatchObject({ alg: "RS256", typ: "at+jwt" });
    expect(payload).toMatchObject({ sub: "alice", scope: "notes:read", client_id: client.client_id });

    const refreshed = await refreshAuthorization(idp.issuer, {
      metadata,
      clientInformation: client,
      refreshToken: tokens.refresh_token ?? "",
      resource: RESOURCE,
    });
    expect((await jwtVerify(refreshed.access_token, jwks, { audience: RESOURCE })).payload.sub).toBe("alice");

    const introspect = async (token: string) => {
      const response = await fetch(`${idp.issuer}/token/introspection`, {
        method: "POST",
        headers: { authorization: `Basic ${Buffer.from("proxy:proxy-secret").toString("base64")}` },
        body: new URLSearchParams({ token }),
      });
      return (await response.json()) as { active: boolean };
    };
    expect(await introspect(refreshed.refresh_token ?? "")).toMatchObject({ active: true });
    const revoked = await fetch(`${idp.issuer}/token/revocation`, {
      method: "POST",
      body: new URLSearchParams({ token: refreshed.refresh_token ?? "", client_id: client.client_id }),
    });
    expect(revoked.status).toBe(200);
    expect(await introspect(refreshed.refresh_token ?? "")).toEqual({ active: false });
  });

  it("sends the browser back with access_denied when the person declines", async () => {
    const { metadata, client } = await registered();
    const { authorizationUrl } = await startAuthorization(idp.issuer, {
      metadata,
      clientInformation: client,
      redirectUrl: REDIRECT,
      scope: "notes:write",
      resource: RESOURCE,
    });
    const landed = new URL(await signInWithChromium(authorizationUrl.href, { browser, consent: false }));
    expect(landed.searchParams.get("error")).toBe("access_denied");
    expect(landed.searchParams.get("code")).toBeNull();
  });

  it("serves a pre-registered client, including one added after it started, and client credentials", async () => {
    const token = await idp.clientCredentialsToken({
      clientId: "proxy",
      clientSecret: "proxy-secret",
      resource: RESOURCE,
      scope: "notes:write",
    });
    const { payload } = await jwtVerify(token, createRemoteJWKSet(new URL(idp.jwksUri)), { audience: RESOURCE });
    expect(payload).toMatchObject({ client_id: "proxy", scope: "notes:write" });

    await idp.addClient({
      client_id: "late",
      client_secret: "late-secret",
      redirect_uris: ["http://127.0.0.1:10/callback"],
      grant_types: ["authorization_code", "client_credentials"],
    });
    const late = await idp.clientCredentialsToken({
      clientId: "late",
      clientSecret: "late-secret",
      resource: RESOURCE,
    });
    expect(decodeProtectedHeader(late).typ).toBe("at+jwt");
    await expect(
      idp.clientCredentialsToken({ clientId: "late", clientSecret: "wrong", resource: RESOURCE }),
    ).rejects.toThrow("invalid_client");
  });

  it("rotates its signing key, keeping the old one published", async () => {
    const token = () =>
      idp.clientCredentialsToken({ clientId: "proxy", clientSecret: "proxy-secret", resource: RESOURCE });
    const before = decodeProtectedHeader(await token()).kid;
    await idp.rotateKeys();
    const after = decodeProtectedHeader(await token()).kid;
    expect(after).not.toBe(before);
    const { keys } = (await (await fetch(idp.jwksUri)).json()) as { keys: { kid: string }[] };
    expect(keys.map((key) => key.kid)).toEqual(expect.arrayContaining([before, after]));
  });

  it("goes down and comes back on the same port with the clients it had", async () => {
    await idp.stop();
    await expect(fetch(`${idp.issuer}/.well-known/openid-configuration`)).rejects.toThrow();
    await idp.start();
    const response = await fetch(`${idp.issuer}/.well-known/openid-configuration`);
    expect(response.status).toBe(200);
    await expect(
      idp.clientCredentialsToken({ clientId: "late", clientSecret: "late-secret", resource: RESOURCE }),
    ).resolves.toEqual(expect.any(String));
  });

  it("refuses a resource it was not told about when given a list", async () => {
    const strict = await startIdp({
      resources: [RESOURCE],
      clients: [{ client_id: "c", client_secret: "s", redirect_uris: [REDIRECT], grant_types: ["client_credentials"] }],
    });
    try {
      await expect(
        strict.clientCredentialsToken({ clientId: "c", clientSecret: "s", resource: "http://127.0.0.1:9/other" }),
      ).rejects.toThrow("invalid_target");
      await expect(
        strict.clientCredentialsToken({ clientId: "c", clientSecret: "s", resource: RESOURCE }),
      ).resolves.toBeTruthy();
    } finally {
      await strict.close();
    }
  });

  it("lets a client that registered for less ask for more, unless told to hold it to its registered scope", async () => {
    const ask = async (on: Idp) => {
      const metadata = await discoverAuthorizationServerMetadata(on.issuer);
      const client = await registerClient(on.issuer, {
        metadata,
        clientMetadata: { redirect_uris: [REDIRECT], token_endpoint_auth_method: "none", scope: "notes:read" },
      });
      const { authorizationUrl } = await startAuthorization(on.issuer, {
        metadata,
        clientInformation: client,
        redirectUrl: REDIRECT,
        scope: "notes:read notes:write",
        resource: RESOURCE,
      });
      return new URL(await signInWithChromium(authorizationUrl.href, { browser })).searchParams;
    };
    expect((await ask(idp)).get("code")).toEqual(expect.any(String));
    const strict = await startIdp({ scopes: ["notes:read", "notes:write"], holdClientsToRegisteredScope: true });
    try {
      // Refused before any page: the browser is sent straight back, and that is where the sign-in ends.
      expect(Object.fromEntries(await ask(strict))).toMatchObject({ error: "invalid_scope", scope: "notes:write" });
    } finally {
      await strict.close();
    }
  });

  it("met no error while answering", () => {
    expect(idp.serverErrors).toEqual([]);
  });
});
