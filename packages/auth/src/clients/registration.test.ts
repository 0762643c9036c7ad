import { exchangeAuthorization, registerClient } from "@modelcontextprotocol/client";
import { afterEach, describe, expect, it } from "vitest";
import { createVault } from "../vault/vault.js";
import type { OAuthClient } from "./client.js";
import { basicCredentials } from "./client-authentication.js";
import { closeRecordedStores, recordedStore } from "./recorded-store.test-util.js";
import type { RegisteredClient } from "./registration.js";
import { type ClientRegistryOptions, createClientRegistry } from "./registry.js";

afterEach(closeRecordedStores);

const SECRET = "a test secret of at least thirty-two bytes";
const ISSUER = "https://mcp.example";

function setUp(options: Partial<ClientRegistryOptions> = {}) {
  const raw = recordedStore();
  const vault = createVault(raw.store, SECRET);
  return { raw, vault, registry: createClientRegistry({ vault, ...options }) };
}

function registration(body: unknown, headers: Record<string, string> = {}): Request {
  return new Request(`${ISSUER}/register`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

const PUBLIC_CLIENT = {
  client_name: "A CLI",
  redirect_uris: ["http://127.0.0.1:33418/callback"],
  grant_types: ["authorization_code", "refresh_token"],
  response_types: ["code"],
  token_endpoint_auth_method: "none",
};

function tokenRequest(form: Record<string, string>, authorization?: string) {
  const body = new URLSearchParams({ grant_type: "authorization_code", code: "c", ...form });
  const request = new Request(`${ISSUER}/token`, {
    method: "POST",
    headers: authorization === undefined ? {} : { authorization },
    body,
  });
  return [request, body] as const;
}

describe("dynamic client registration (RFC 7591)", () => {
  it("registers a public client: 201 with its id and metadata, found by resolve, no secret", async () => {
    const { registry } = setUp();
    const response = await registry.register(registration(PUBLIC_CLIENT), "203.0.113.1");
    expect(response.status).toBe(201);
    expect(response.headers.get("cache-control")).toBe("no-store");
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toMatchObject({ ...PUBLIC_CLIENT, client_id: expect.stringMatching(/^[\w-]{32}$/) });
    expect(body.client_secret).toBeUndefined();
    expect(typeof body.client_id_issued_at).toBe("number");
    const client = await registry.resolve(body.client_id as string);
    expect(client).toEqual({
      clientId: body.client_id,
      clientName: "A CLI",
      redirectUris: PUBLIC_CLIENT.redirect_uris,
      tokenEndpointAuthMethod: "none",
      grantTypes: ["authorization_code", "refresh_token"],
      source: "registration",
    });
  });

  it("answers what the official client's registerClient reads, with RFC 7591's defaults", async () => {
    const { registry } = setUp();
    const info = await registerClient(ISSUER, {
      clientMetadata: { redirect_uris: ["http://localhost:8090/callback"], client_name: "official" },
      fetchFn: (url, init) => registry.register(new Request(url, init), "198.51.100.4"),
    });
    // No token_endpoint_auth_method asked for: client_secret_basic (RFC 7591 §2), so a secret is issued.
    expect(info).toMatchObject({
      token_endpoint_auth_method: "client_secret_basic",
      grant_types: ["authorization_code"],
      response_types: ["code"],
    });
    expect(info.client_secret).toMatch(/^[\w-]{43}$/);
    expect(info.client_secret_expires_at).toBeGreaterThan(Date.now() / 1000 + 29 * 24 * 3600);
  });

  it("keeps the secret only as a hash: neither it nor its hash is readable in the store", async () => {
    const { registry, raw, vault } = setUp();
    const response = await registry.register(
      registration({ ...PUBLIC_CLIENT, token_endpoint_auth_method: "client_secret_post" }),
      "caller",
    );
    const { client_id: clientId, client_secret: secret } = (await response.json()) as Record<string, string>;
    const record = await vault.get<RegisteredClient>("client", clientId as string);
    expect(record?.secretHash).toMatch(/^[\w-]{43}$/);
    expect(JSON.stringify(record)).not.toContain(secret);
    const everything = JSON.stringify([...raw.values]);
    expect(everything).not.toContain(secret);
    expect(everything).not.toContain(record?.secretHash);
    expect(everything).not.toContain(clientId);
    // The record lives 30 days from registration, fixed.
    expect([...raw.values.values()].map((entry) => entry.ttlMs)).toEqual([30 * 24 * 60 * 60_000]);
  });

  it.each<[string, unknown, string]>([
    ["no redirect_uris", { ...PUBLIC_CLIENT, redirect_uris: undefined }, "invalid_redirect_uri"],
    ["empty redirect_uris", { ...PUBLIC_CLIENT, redirect_uris: [] }, "invalid_redirect_uri"],
    ["redirect_uris not an array", { ...PUBLIC_CLIENT, redirect_uris: "https://a.example/cb" }, "invalid_redirect_uri"],
    ["a relative redirect URI", { ...PUBLIC_CLIENT, redirect_uris: ["/callback"] }, "invalid_redirect_uri"],
    [
      "a redirect URI with a fragment",
      { ...PUBLIC_CLIENT, redirect_uris: ["https://a.example/cb#x"] },
      "invalid_redirect_uri",
    ],
    [
      "a non-loopback http redirect URI",
      { ...PUBLIC_CLIENT, redirect_uris: ["http://a.example/cb"] },
      "invalid_redirect_uri",
    ],
    [
      "a javascript: redirect URI",
      { ...PUBLIC_CLIENT, redirect_uris: ["javascript:alert(1)"] },
      "invalid_redirect_uri",
    ],
    ["a data: redirect URI", { ...PUBLIC_CLIENT, redirect_uris: ["data:text/html,hi"] }, "invalid_redirect_uri"],
    ["a file: redirect URI", { ...PUBLIC_CLIENT, redirect_uris: ["file:///etc/passwd"] }, "invalid_redirect_uri"],
    [
      "credentials in a redirect URI",
      { ...PUBLIC_CLIENT, redirect_uris: ["https://u:p@a.example/cb"] },
      "invalid_redirect_uri",
    ],
    ["a redirect URI that is not a string", { ...PUBLIC_CLIENT, redirect_uris: [42] }, "invalid_redirect_uri"],
    [
      "21 redirect URIs",
      { ...PUBLIC_CLIENT, redirect_uris: Array.from({ length: 21 }, (_, i) => `https://a.example/${i}`) },
      "invalid_redirect_uri",
    ],
    [
      "a huge redirect URI",
      { ...PUBLIC_CLIENT, redirect_uris: [`https://a.example/${"x".repeat(2001)}`] },
      "invalid_redirect_uri",
    ],
    [
      "grant_types client_credentials",
      { ...PUBLIC_CLIENT, grant_types: ["client_credentials"] },
      "invalid_client_metadata",
    ],
    [
      "grant_types implicit",
      { ...PUBLIC_CLIENT, grant_types: ["authorization_code", "implicit"] },
      "invalid_client_metadata",
    ],
    [
      "grant_types refresh_token alone",
      { ...PUBLIC_CLIENT, grant_types: ["refresh_token"] },
      "invalid_client_metadata",
    ],
    ["grant_types not an array", { ...PUBLIC_CLIENT, grant_types: "authorization_code" }, "invalid_client_metadata"],
    ["response_types token", { ...PUBLIC_CLIENT, response_types: ["token"] }, "invalid_client_metadata"],
    [
      "response_types code and token",
      { ...PUBLIC_CLIENT, response_types: ["code", "token"] },
      "invalid_client_metadata",
    ],
    [
      "token_endpoint_auth_method private_key_jwt",
      { ...PUBLIC_CLIENT, token_endpoint_auth_method: "private_key_jwt" },
      "invalid_client_metadata",
    ],
    [
      "token_endpoint_auth_method client_secret_jwt",
      { ...PUBLIC_CLIENT, token_endpoint_auth_method: "client_secret_jwt" },
      "invalid_client_metadata",
    ],
    ["a 201-character client_name", { ...PUBLIC_CLIENT, client_name: "n".repeat(201) }, "invalid_client_metadata"],
    [
      "a client_name with a control character",
      { ...PUBLIC_CLIENT, client_name: "evil\u001b[31m" },
      "invalid_client_metadata",
    ],
    ["a client_name that is not a string", { ...PUBLIC_CLIENT, client_name: { a: 1 } }, "invalid_client_metadata"],
    ["an http client_uri", { ...PUBLIC_CLIENT, client_uri: "http://a.example" }, "invalid_client_metadata"],
    ["a javascript: logo_uri", { ...PUBLIC_CLIENT, logo_uri: "javascript:alert(1)" }, "invalid_client_metadata"],
    ["a tos_uri that is no URL", { ...PUBLIC_CLIENT, tos_uri: "terms" }, "invalid_client_metadata"],
    [
      "a policy_uri with credentials",
      { ...PUBLIC_CLIENT, policy_uri: "https://u:p@a.example/p" },
      "invalid_client_metadata",
    ],
    ["a scope with a double quote", { ...PUBLIC_CLIENT, scope: 'files:read "x' }, "invalid_client_metadata"],
    ["a scope with two spaces", { ...PUBLIC_CLIENT, scope: "a  b" }, "invalid_client_metadata"],
    ["a huge scope", { ...PUBLIC_CLIENT, scope: "s".repeat(1001) }, "invalid_client_metadata"],
    [
      "11 contacts",
      { ...PUBLIC_CLIENT, contacts: Array.from({ length: 11 }, () => "a@b.example") },
      "invalid_client_metadata",
    ],
    ["application_type desktop", { ...PUBLIC_CLIENT, application_type: "desktop" }, "invalid_client_metadata"],
    ["a huge software_id", { ...PUBLIC_CLIENT, software_id: "i".repeat(201) }, "invalid_client_metadata"],
    ["an array body", [PUBLIC_CLIENT], "invalid_client_metadata"],
    ["a null body", null, "invalid_client_metadata"],
    ["a body that is not JSON", "{redirect_uris:", "invalid_client_metadata"],
  ])("refuses %s with 400 %s", async (_name, body, error) => {
    const { registry } = setUp();
    const response = await registry.register(registration(body), "caller");
    expect(response.status).toBe(400);
    const answer = (await response.json()) as { error: string; error_description: string };
    expect(answer.error).toBe(error);
    expect(answer.error_description.length).toBeGreaterThan(0);
  });

  it("refuses a body that is not application/json, and one past 16 KiB", async () => {
    const { registry } = setUp();
    const form = await registry.register(
      registration(JSON.stringify(PUBLIC_CLIENT), { "content-type": "application/x-www-form-urlencoded" }),
      "caller",
    );
    expect(form.status).toBe(400);
    const huge = await registry.register(registration({ ...PUBLIC_CLIENT, padding: "x".repeat(17_000) }), "caller");
    expect(huge.status).toBe(400);
    expect(((await huge.json()) as { error_description: string }).error_description).toContain("larger than");
  });

  it("accepts loopback http, https and private-use scheme redirect URIs, kept exactly as given", async () => {
    const { registry } = setUp();
    const uris = [
      "http://127.0.0.1:33418/callback",
      "http://[::1]/cb",
      "http://localhost:8080/cb?x=1",
      "https://app.example/oauth/cb",
      "com.example.app:/oauth2redirect",
      "cursor://anysphere.cursor-retrieval/oauth/callback",
    ];
    const response = await registry.register(registration({ ...PUBLIC_CLIENT, redirect_uris: uris }), "caller");
    expect(response.status).toBe(201);
    const { client_id: clientId } = (await response.json()) as { client_id: string };
    expect((await registry.resolve(clientId))?.redirectUris).toEqual(uris);
  });

  it("bounds registrations per caller: the 21st in an hour gets 429 with Retry-After, another caller does not", async () => {
    const { registry } = setUp();
    for (let i = 0; i < 20; i++) {
      expect((await registry.register(registration(PUBLIC_CLIENT), "203.0.113.7")).status).toBe(201);
    }
    const refused = await registry.register(registration(PUBLIC_CLIENT), "203.0.113.7");
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("3600");
    expect(((await refused.json()) as { error: string }).error).toBe("temporarily_unavailable");
    expect((await registry.register(registration(PUBLIC_CLIENT), "203.0.113.8")).status).toBe(201);
  });

  it("refuses when registration is off, and a method other than POST", async () => {
    const off = setUp({ dynamicRegistration: false }).registry;
    expect(off.dynamicRegistration).toBe(false);
    expect((await off.register(registration(PUBLIC_CLIENT), "caller")).status).toBe(403);
    const on = setUp().registry;
    const get = await on.register(new Request(`${ISSUER}/register`), "caller");
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST");
  });

  it("does not find an unknown, empty or oversized client id", async () => {
    const { registry } = setUp();
    for (const id of ["unknown", "", "x".repeat(300)]) {
      const found = await registry.lookup(id);
      expect(found.client).toBeUndefined();
      expect(found.reason).toContain("No client is registered");
    }
  });
});

describe("client authentication at the token endpoint", () => {
  async function registered(method: string) {
    const { registry } = setUp();
    const response = await registry.register(
      registration({ ...PUBLIC_CLIENT, token_endpoint_auth_method: method }),
      "caller",
    );
    const info = (await response.json()) as { client_id: string; client_secret?: string };
    const client = (await registry.resolve(info.client_id)) as OAuthClient;
    return { registry, client, id: info.client_id, secret: info.client_secret ?? "" };
  }
  const basic = (id: string, secret: string) =>
    `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString("base64")}`;

  it("none: the client_id in the form, and no secret anywhere", async () => {
    const { registry, client, id } = await registered("none");
    expect(await registry.authenticate(client, ...tokenRequest({ client_id: id }))).toBe(true);
    expect(await registry.authenticate(client, ...tokenRequest({}))).toBe(false);
    expect(await registry.authenticate(client, ...tokenRequest({ client_id: "other" }))).toBe(false);
    expect(await registry.authenticate(client, ...tokenRequest({ client_id: id, client_secret: "x" }))).toBe(false);
    expect(await registry.authenticate(client, ...tokenRequest({ client_id: id }, basic(id, "x")))).toBe(false);
  });

  it("client_secret_basic: the form-urlencoded id and secret in the header", async () => {
    const { registry, client, id, secret } = await registered("client_secret_basic");
    expect(await registry.authenticate(client, ...tokenRequest({}, basic(id, secret)))).toBe(true);
    expect(await registry.authenticate(client, ...tokenRequest({ client_id: id }, basic(id, secret)))).toBe(true);
    expect(await registry.authenticate(client, ...tokenRequest({}, basic(id, `${secret}x`)))).toBe(false);
    expect(await registry.authenticate(client, ...tokenRequest({}, basic(id, secret.slice(1))))).toBe(false);
    expect(await registry.authenticate(client, ...tokenRequest({}, basic("other", secret)))).toBe(false);
    expect(await registry.authenticate(client, ...tokenRequest({ client_id: id, client_secret: secret }))).toBe(false);
    expect(await registry.authenticate(client, ...tokenRequest({ client_secret: secret }, basic(id, secret)))).toBe(
      false,
    );
    expect(await registry.authenticate(client, ...tokenRequest({}, "Basic !!!"))).toBe(false);
  });

  it("client_secret_basic as the official client sends it (exchangeAuthorization)", async () => {
    const { registry, client, id, secret } = await registered("client_secret_basic");
    let passed: boolean | undefined;
    await exchangeAuthorization(ISSUER, {
      clientInformation: { client_id: id, client_secret: secret, token_endpoint_auth_method: "client_secret_basic" },
      authorizationCode: "code",
      codeVerifier: "verifier",
      redirectUri: PUBLIC_CLIENT.redirect_uris[0] as string,
      fetchFn: async (url, init) => {
        const request = new Request(url, init);
        passed = await registry.authenticate(client, request, new URLSearchParams(await request.clone().text()));
        return Response.json({ access_token: "t", token_type: "Bearer" });
      },
    });
    expect(passed).toBe(true);
  });

  it("client_secret_post: id and secret in the form, no header", async () => {
    const { registry, client, id, secret } = await registered("client_secret_post");
    expect(await registry.authenticate(client, ...tokenRequest({ client_id: id, client_secret: secret }))).toBe(true);
    expect(await registry.authenticate(client, ...tokenRequest({ client_id: id, client_secret: "wrong" }))).toBe(false);
    expect(await registry.authenticate(client, ...tokenRequest({ client_id: id }))).toBe(false);
    expect(await registry.authenticate(client, ...tokenRequest({}, basic(id, secret)))).toBe(false);
  });

  it("decodes Basic credentials as RFC 6749 §2.3.1 encodes them", () => {
    const header = `Basic ${Buffer.from("my%3Aclient:s3cr%C3%A9t+%2B+x").toString("base64")}`;
    expect(basicCredentials(header)).toEqual({ id: "my:client", secret: "s3crét + x" });
    expect(basicCredentials(null)).toBeUndefined();
    expect(basicCredentials("Bearer abc")).toBeUndefined();
    expect(basicCredentials(`Basic ${Buffer.from("no-colon").toString("base64")}`)).toBeNull();
    expect(basicCredentials(`Basic ${Buffer.from("a:%zz").toString("base64")}`)).toBeNull();
  });
});
