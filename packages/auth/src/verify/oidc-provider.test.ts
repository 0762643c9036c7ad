import { type Idp, startIdp } from "@toolsmith/tests-idp";
import { AuthUnavailable } from "@toolsmith/transport-http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TokenPrincipal } from "../tokens/principal.js";
import { request } from "./idp.test-util.js";
import { introspectionVerifier } from "./introspection-verifier.js";
import { jwtVerifier } from "./jwt-verifier.js";

// The tokens a real OpenID provider (oidc-provider, tests/idp) issues: its JWT access tokens for a resource (RFC 8707)
// verified by jwtVerifier through discovery, its opaque ones by introspectionVerifier at its introspection endpoint.

const RESOURCE = "http://127.0.0.1:4000/mcp";
const SERVICE = { clientId: "service", clientSecret: "service-secret-of-some-length" };
const RS = { id: "resource-server", secret: "resource-server-secret" };
let idp: Idp;

beforeAll(async () => {
  idp = await startIdp({
    clients: [
      {
        client_id: SERVICE.clientId,
        client_secret: SERVICE.clientSecret,
        grant_types: ["client_credentials"],
        redirect_uris: [],
        response_types: [],
      },
      { client_id: RS.id, client_secret: RS.secret, grant_types: [], redirect_uris: [], response_types: [] },
    ],
  });
});
afterAll(() => idp.close());

/** An opaque client-credentials token: asked for without a resource indicator, so the provider keeps it itself. */
async function opaqueToken(): Promise<string> {
  const response = await fetch(`${idp.issuer}/token`, {
    method: "POST",
    headers: {
      authorization: `Basic ${Buffer.from(`${SERVICE.clientId}:${SERVICE.clientSecret}`).toString("base64")}`,
    },
    body: new URLSearchParams({ grant_type: "client_credentials" }),
  });
  const answer = (await response.json()) as { access_token?: string };
  if (answer.access_token === undefined) throw new Error(`no token: ${JSON.stringify(answer)}`);
  return answer.access_token;
}

describe("tokens oidc-provider issues", () => {
  it("jwtVerifier: its JWT access token for this resource, keys found by discovery; for another resource 401", async () => {
    const verify = jwtVerifier({ issuer: idp.issuer, audience: RESOURCE, requiredScopes: ["mcp:read"] });
    const token = await idp.clientCredentialsToken({ ...SERVICE, resource: RESOURCE, scope: "mcp:read mcp:write" });
    const principal = (await verify(request(`Bearer ${token}`))) as TokenPrincipal;
    expect(principal).toMatchObject({
      subject: SERVICE.clientId,
      clientId: SERVICE.clientId,
      issuer: idp.issuer,
      scopes: expect.arrayContaining(["mcp:read", "mcp:write"]),
    });
    expect(principal.expiresAt).toBeGreaterThan(Date.now() / 1000);
    const foreign = await idp.clientCredentialsToken({
      ...SERVICE,
      resource: "http://127.0.0.1:4001/mcp",
      scope: "mcp:read",
    });
    await expect(verify(request(`Bearer ${foreign}`))).rejects.toMatchObject({ status: 401, error: "invalid_token" });
    expect(idp.serverErrors).toEqual([]);
  });

  it("jwtVerifier: after the provider rotates its key, old and new tokens verify", async () => {
    const verify = jwtVerifier({ issuer: idp.issuer, audience: RESOURCE, jwksCooldownSec: 0 });
    const old = await idp.clientCredentialsToken({ ...SERVICE, resource: RESOURCE, scope: "mcp:read" });
    expect(await verify(request(`Bearer ${old}`))).toBeDefined();
    await idp.rotateKeys();
    const rotated = await idp.clientCredentialsToken({ ...SERVICE, resource: RESOURCE, scope: "mcp:read" });
    expect(await verify(request(`Bearer ${rotated}`))).toBeDefined();
    expect(await verify(request(`Bearer ${old}`))).toBeDefined();
  });

  it("introspectionVerifier: its opaque token is active at its introspection endpoint; garbage is 401", async () => {
    const verify = introspectionVerifier({ endpoint: `${idp.issuer}/token/introspection`, client: RS });
    const token = await opaqueToken();
    expect(token.split(".")).toHaveLength(1);
    const principal = (await verify(request(`Bearer ${token}`))) as TokenPrincipal;
    expect(principal).toMatchObject({
      subject: SERVICE.clientId,
      clientId: SERVICE.clientId,
      claims: { active: true },
    });
    await expect(verify(request("Bearer not-a-token-it-issued"))).rejects.toMatchObject({ status: 401 });
    expect(idp.serverErrors).toEqual([]);
  });

  it("the provider stopped: 503 (AuthUnavailable) for a verifier with no keys yet, never 401", async () => {
    const token = await idp.clientCredentialsToken({ ...SERVICE, resource: RESOURCE, scope: "mcp:read" });
    const verify = jwtVerifier({ issuer: idp.issuer, audience: RESOURCE });
    await idp.stop();
    try {
      await expect(verify(request(`Bearer ${token}`))).rejects.toBeInstanceOf(AuthUnavailable);
    } finally {
      await idp.start();
    }
  });
});
