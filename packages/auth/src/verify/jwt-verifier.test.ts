import { inspect } from "node:util";
import { AuthError, AuthUnavailable } from "@toolsmith/transport-http";
import { exportSPKI, importJWK, SignJWT, UnsecuredJWT } from "jose";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import type { TokenPrincipal } from "../tokens/principal.js";
import { RESOURCE, request, type SigningKey, signingKey, startIdp, type TestIdp, token } from "./idp.test-util.js";
import { jwtVerifier } from "./jwt-verifier.js";
import { errorOf, protectedServer } from "./serve.test-util.js";

// jwtVerifier against a key-serving provider of our own on 127.0.0.1: every hostile token is refused with its
// status and RFC 6750 error, the token never in what the caller is told or the server logs, and the provider
// asked for keys only as often as the cooldown allows.

let idp: TestIdp;
let key: SigningKey;
let other: SigningKey;

beforeAll(async () => {
  idp = await startIdp();
  key = await signingKey("k1");
  other = await signingKey("k1");
  idp.keys = [key];
});
afterAll(() => idp.close());
afterEach(() => {
  vi.useRealTimers();
  idp.mode = "up";
  idp.keys = [key];
});

const now = () => Math.floor(Date.now() / 1000);
const fresh = (extra: Partial<Parameters<typeof jwtVerifier>[0]> = {}) =>
  jwtVerifier({ issuer: idp.issuer, audience: RESOURCE, ...extra });

async function hmacWithPublicKey(): Promise<string> {
  const spki = await exportSPKI((await importJWK(key.jwk, "ES256", { extractable: true })) as CryptoKey);
  return new SignJWT({ iss: idp.issuer, aud: RESOURCE, sub: "mallory", exp: now() + 3600 })
    .setProtectedHeader({ alg: "HS256", kid: "k1" })
    .sign(new TextEncoder().encode(spki));
}

const HOSTILE: [string, () => Promise<string>, string][] = [
  ["a forged signature (another key, the same kid)", () => token(other, idp.issuer), "not valid"],
  ["an expired token", () => token(key, idp.issuer, { exp: now() - 3600 }), "expired"],
  ["a token not valid yet", () => token(key, idp.issuer, { nbf: now() + 3600 }), "not valid yet"],
  ["another issuer's token", () => token(key, "http://127.0.0.1:1/evil"), "not valid"],
  ["a token for another resource", () => token(key, idp.issuer, { aud: "http://127.0.0.1/other" }), "this resource"],
  ["a token with no audience", () => token(key, idp.issuer, { aud: undefined }), "this resource"],
  ["a token with no expiry", () => token(key, idp.issuer, { exp: undefined }), "not valid"],
  [
    "alg: none",
    async () => new UnsecuredJWT({ iss: idp.issuer, aud: RESOURCE, sub: "mallory", exp: now() + 3600 }).encode(),
    "not valid",
  ],
  ["HS256 signed with the public key's bytes", hmacWithPublicKey, "not valid"],
  ["an ID token's typ", () => token(key, idp.issuer, {}, { typ: "dpop+jwt" }), "not valid"],
  ["three dots of garbage", async () => "abc.def.ghi", "not valid"],
];

describe("jwtVerifier: hostile tokens", () => {
  it.each(HOSTILE)("%s: 401 invalid_token, nothing of the token told or logged", async (_name, make, said) => {
    const served = protectedServer(fresh());
    const hostile = await make();
    const told = await served.ask(`Bearer ${hostile}`);
    expect(told.status).toBe(401);
    expect(errorOf(told.challenge)).toBe("invalid_token");
    expect(told.challenge).toContain(said);
    expect(told.challenge).toContain(
      'resource_metadata="http://127.0.0.1:3000/.well-known/oauth-protected-resource/mcp"',
    );
    for (const part of hostile.split(".").filter((piece) => piece.length > 8)) {
      expect(told.body).not.toContain(part);
      expect(told.challenge).not.toContain(part);
      expect(JSON.stringify(served.logged)).not.toContain(part);
    }
    expect(served.logged).toEqual([]);
  });

  it("no Authorization header: undefined (the transport's 401), and a Basic one is none either", async () => {
    const verify = fresh();
    expect(await verify(request())).toBeUndefined();
    expect(await verify(request("Basic YTpi"))).toBeUndefined();
    const told = await protectedServer(verify).ask();
    // No credentials: told where to get some, without an error code (RFC 6750 §3.1).
    expect([told.status, errorOf(told.challenge)]).toEqual([401, undefined]);
  });

  it("a bearer header that is no token (empty, not a b64token, too long): 401 before any key is fetched", async () => {
    const verify = jwtVerifier({ issuer: idp.issuer, audience: RESOURCE, jwksUri: `${idp.issuer}/never` });
    for (const header of ["Bearer ", "Bearer a b", "Bearer <script>", `Bearer ${"a".repeat(20_000)}`]) {
      await expect(verify(request(header))).rejects.toMatchObject({ status: 401, error: "invalid_token" });
    }
    expect(idp.count("/never")).toBe(0);
  });

  it("an HMAC or none algorithm is refused when the verifier is made", () => {
    for (const algorithms of [["HS256"], ["RS256", "none"], []]) {
      expect(() => fresh({ algorithms })).toThrow(/asymmetric/);
    }
  });

  it("options that contradict or make no sense are refused when the verifier is made", () => {
    expect(() => fresh({ jwks: { keys: [key.jwk] }, jwksUri: idp.jwksUri })).toThrow(/not both/);
    expect(() => fresh({ clockToleranceSec: -1 })).toThrow(/clockToleranceSec/);
    expect(() => fresh({ audience: [] })).toThrow(/audience/);
    expect(() => jwtVerifier({ issuer: "not a url", audience: RESOURCE })).toThrow(/issuer/);
  });

  it("a token signed with an algorithm outside the allow-list: 401, no key fetched for it", async () => {
    const verify = fresh({ algorithms: ["RS256"], jwksUri: `${idp.issuer}/jwks-untouched` });
    await expect(verify(request(`Bearer ${await token(key, idp.issuer)}`))).rejects.toBeInstanceOf(AuthError);
    expect(idp.count("/jwks-untouched")).toBe(0);
  });
});

describe("jwtVerifier: the principal", () => {
  it("names the subject, scopes, client, expiry, issuer and claims; never the token", async () => {
    const exp = now() + 600;
    const good = await token(key, idp.issuer, { scope: "files:read files:write", client_id: "app", exp });
    const principal = (await fresh()(request(`Bearer ${good}`))) as TokenPrincipal;
    expect(principal).toMatchObject({
      subject: "alice",
      scopes: ["files:read", "files:write"],
      clientId: "app",
      expiresAt: exp,
      issuer: idp.issuer,
      claims: { sub: "alice", client_id: "app" },
    });
    expect("token" in principal).toBe(false);
    expect(JSON.stringify(principal) + inspect(principal, { showHidden: false })).not.toContain(good.split(".")[2]);
  });

  it("with exposeToken, the raw token is a non-enumerable property: JSON and inspect do not show it", async () => {
    const good = await token(key, idp.issuer);
    const principal = (await fresh({ exposeToken: true })(request(`Bearer ${good}`))) as TokenPrincipal;
    expect(principal.token).toBe(good);
    expect(Object.keys(principal)).not.toContain("token");
    expect(JSON.stringify(principal) + inspect(principal)).not.toContain(good.split(".")[2]);
  });

  it.each([
    ["scope as a string", { scope: "a b" }, ["a", "b"]],
    ["scp as an array", { scp: ["a", "b"] }, ["a", "b"]],
    ["scp as a string", { scp: "a b" }, ["a", "b"]],
    ["neither", {}, []],
  ])("scopes from %s", async (_name, claims, scopes) => {
    const principal = await fresh()(request(`Bearer ${await token(key, idp.issuer, claims)}`));
    expect(principal?.scopes).toEqual(scopes);
  });

  it("azp names the client when client_id does not; a client's own token (no sub) is its client's", async () => {
    const viaAzp = await fresh()(request(`Bearer ${await token(key, idp.issuer, { azp: "web" })}`));
    expect(viaAzp).toMatchObject({ subject: "alice", clientId: "web" });
    const own = await fresh()(request(`Bearer ${await token(key, idp.issuer, { sub: undefined, client_id: "svc" })}`));
    expect(own).toMatchObject({ subject: "svc", clientId: "svc" });
  });

  it("requiredScopes: a good token without them is 403 insufficient_scope; with them, 200", async () => {
    const served = protectedServer(fresh({ requiredScopes: ["mcp:use"] }));
    const lacking = await served.ask(`Bearer ${await token(key, idp.issuer, { scope: "other" })}`);
    expect([lacking.status, errorOf(lacking.challenge)]).toEqual([403, "insufficient_scope"]);
    expect(lacking.challenge).toContain("mcp:use");
    const granted = await served.ask(`Bearer ${await token(key, idp.issuer, { scp: ["mcp:use"] })}`);
    expect(granted.status).toBe(200);
  });

  it("a clock a little behind: exp and nbf within the tolerance pass, beyond it fail", async () => {
    const verify = fresh({ clockToleranceSec: 60 });
    expect(await verify(request(`Bearer ${await token(key, idp.issuer, { exp: now() - 30 })}`))).toBeDefined();
    expect(await verify(request(`Bearer ${await token(key, idp.issuer, { nbf: now() + 30 })}`))).toBeDefined();
    await expect(verify(request(`Bearer ${await token(key, idp.issuer, { exp: now() - 90 })}`))).rejects.toThrow(
      /expired/,
    );
  });

  it("a local key set (jwks) verifies without asking anyone", async () => {
    const before = idp.count("/jwks");
    const discovered = idp.count("/.well-known/openid-configuration");
    const verify = jwtVerifier({ issuer: idp.issuer, audience: [RESOURCE, "urn:x"], jwks: { keys: [key.jwk] } });
    expect(await verify(request(`Bearer ${await token(key, idp.issuer)}`))).toMatchObject({ subject: "alice" });
    await expect(verify(request(`Bearer ${await token(other, idp.issuer)}`))).rejects.toBeInstanceOf(AuthError);
    expect(idp.count("/jwks")).toBe(before);
    expect(idp.count("/.well-known/openid-configuration")).toBe(discovered);
  });
});

describe("jwtVerifier: keys fetched lazily, refetched only as the cooldown allows", () => {
  it("a verified token is remembered a minute at most, never past exp; its scopes are checked on every request", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() });
    const verify = jwtVerifier({ issuer: idp.issuer, audience: RESOURCE, jwks: { keys: [key.jwk] } });
    const short = await token(key, idp.issuer, { exp: now() + 20 });
    expect(await verify(request(`Bearer ${short}`))).toBeDefined();
    vi.setSystemTime(Date.now() + 21_000 + 30_000);
    await expect(verify(request(`Bearer ${short}`))).rejects.toThrow(/expired/);
    const scoped = jwtVerifier({
      issuer: idp.issuer,
      audience: RESOURCE,
      jwks: { keys: [key.jwk] },
      requiredScopes: ["x"],
    });
    const lacking = await token(key, idp.issuer, { scope: "y" });
    for (let i = 0; i < 2; i++)
      await expect(scoped(request(`Bearer ${lacking}`))).rejects.toMatchObject({ status: 403 });
  });

  it("a remembered token is answered at once, with one frozen principal; a token a character off is checked anew", async () => {
    const verify = jwtVerifier({ issuer: idp.issuer, audience: RESOURCE, jwks: { keys: [key.jwk] } });
    const check = verify.fromAuthorization as NonNullable<typeof verify.fromAuthorization>;
    const signed = await token(key, idp.issuer, { scope: "a b" });
    const first = check(`Bearer ${signed}`);
    expect(first).toBeInstanceOf(Promise);
    const principal = (await first) as TokenPrincipal;
    const again = check(`bearer   ${signed}  `) as TokenPrincipal;
    expect(again).toBe(principal);
    // Shared by every request that brings the token: a handler cannot change what the next one sees.
    expect(Object.isFrozen(principal) && Object.isFrozen(principal.scopes) && Object.isFrozen(principal.claims)).toBe(
      true,
    );
    expect(() => (principal.scopes as string[]).push("admin")).toThrow(TypeError);
    // Neither a token with a character more (not a b64token) nor one with its signature changed rides on it.
    expect(() => check(`Bearer ${signed}!`)).toThrow(AuthError);
    const tampered = `${signed.slice(0, -2)}${signed.endsWith("AA") ? "BA" : "AA"}`;
    await expect(check(`Bearer ${tampered}`)).rejects.toMatchObject({ status: 401 });
    expect(() => check(`Bearer ${"a".repeat(20_000)}`)).toThrow(AuthError);
  });

  it("a remembered token's nested claims are frozen too: a handler changing them cannot change the next request's", async () => {
    const verify = jwtVerifier({ issuer: idp.issuer, audience: RESOURCE, jwks: { keys: [key.jwk] } });
    const signed = await token(key, idp.issuer, { aud: [RESOURCE, "http://127.0.0.1/b"], realm: { roles: ["user"] } });
    const principal = (await verify(request(`Bearer ${signed}`))) as TokenPrincipal;
    const roles = (principal.claims.realm as { roles: string[] }).roles;
    expect(() => roles.push("admin")).toThrow(TypeError);
    expect(() => (principal.claims.aud as string[]).splice(0)).toThrow(TypeError);
    const next = (await verify(request(`Bearer ${signed}`))) as TokenPrincipal;
    expect(next.claims).toMatchObject({ aud: [RESOURCE, "http://127.0.0.1/b"], realm: { roles: ["user"] } });
  });

  it("a remembered token is verified again later: once its key has left the set and the set is refetched, it is refused", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() });
    const verify = fresh({ jwksUri: idp.jwksUri });
    const signed = await token(key, idp.issuer);
    expect(await verify(request(`Bearer ${signed}`))).toBeDefined();
    idp.keys = [await signingKey("k9")];
    vi.setSystemTime(Date.now() + 59_000);
    expect(await verify(request(`Bearer ${signed}`))).toBeDefined();
    vi.setSystemTime(Date.now() + 10 * 60_000);
    await expect(verify(request(`Bearer ${signed}`))).rejects.toMatchObject({ status: 401 });
  });

  it("an unknown kid refetches once, then 401; a flood of them makes at most one fetch per cooldown", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() });
    const verify = fresh({ jwksUri: idp.jwksUri });
    const base = idp.count("/jwks");
    expect(await verify(request(`Bearer ${await token(key, idp.issuer)}`))).toBeDefined();
    expect(idp.count("/jwks")).toBe(base + 1);
    const bogus = await Promise.all(
      Array.from({ length: 50 }, async (_, i) => token({ ...key, kid: `bogus-${i}` }, idp.issuer)),
    );
    const flood = () => Promise.allSettled(bogus.map((one) => verify(request(`Bearer ${one}`))));
    // Within the cooldown after the first fetch: no fetch at all.
    for (const outcome of await flood()) expect(outcome).toMatchObject({ status: "rejected", reason: { status: 401 } });
    expect(idp.count("/jwks")).toBe(base + 1);
    // Past it: the whole flood makes one.
    vi.setSystemTime(Date.now() + 31_000);
    for (const outcome of await flood()) expect(outcome).toMatchObject({ status: "rejected", reason: { status: 401 } });
    expect(idp.count("/jwks")).toBe(base + 2);
    await flood();
    expect(idp.count("/jwks")).toBe(base + 2);
  });

  it("rotation: the new key is fetched once, the old key's token stays good until it expires", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() });
    const verify = fresh({ jwksUri: idp.jwksUri });
    const old = await token(key, idp.issuer, { exp: now() + 120 });
    expect(await verify(request(`Bearer ${old}`))).toBeDefined();
    const base = idp.count("/jwks");
    const next = await signingKey("k2");
    idp.keys = [next, key];
    vi.setSystemTime(Date.now() + 31_000);
    const rotated = await token(next, idp.issuer);
    for (let i = 0; i < 5; i++) expect(await verify(request(`Bearer ${rotated}`))).toBeDefined();
    expect(idp.count("/jwks")).toBe(base + 1);
    expect(await verify(request(`Bearer ${old}`))).toBeDefined();
    vi.setSystemTime(Date.now() + 120_000);
    await expect(verify(request(`Bearer ${old}`))).rejects.toThrow(/expired/);
    expect(await verify(request(`Bearer ${await token(next, idp.issuer)}`))).toBeDefined();
  });

  it("discovery: the jwks_uri of the issuer's OpenID metadata, asked for once", async () => {
    const verify = fresh();
    const base = idp.count("/.well-known/openid-configuration");
    for (let i = 0; i < 3; i++) expect(await verify(request(`Bearer ${await token(key, idp.issuer)}`))).toBeDefined();
    expect(idp.count("/.well-known/openid-configuration")).toBe(base + 1);
  });

  it("discovery for an issuer with a path, published only as RFC 8414 metadata", async () => {
    const tenant = await startIdp({ issuerPath: "/tenant", metadataAt: "oauth" });
    try {
      tenant.keys = [key];
      const verify = jwtVerifier({ issuer: tenant.issuer, audience: RESOURCE });
      expect(await verify(request(`Bearer ${await token(key, tenant.issuer)}`))).toMatchObject({ subject: "alice" });
      expect(tenant.count("/.well-known/oauth-authorization-server/tenant")).toBe(1);
    } finally {
      await tenant.close();
    }
  });
});

describe("jwtVerifier: the provider unreachable is 503 with Retry-After, never 401", () => {
  it.each(["drop", "garbage"] as const)("it answers %s: 503, fails fast meanwhile, then recovers", async (mode) => {
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() });
    const served = protectedServer(fresh({ retryAfterSec: 7 }));
    const good = `Bearer ${await token(key, idp.issuer)}`;
    idp.mode = mode;
    const before = idp.count("/.well-known/openid-configuration");
    const told = await served.ask(good);
    expect(told.status).toBe(503);
    expect(told.retryAfter).toBe("7");
    expect(JSON.parse(told.body)).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32000 } });
    expect(told.body).toMatch(/identity provider could not be reached/);
    // Backed off: callers meanwhile are told 503 without the provider being asked again.
    for (let i = 0; i < 5; i++) expect((await served.ask(good)).status).toBe(503);
    expect(idp.count("/.well-known/openid-configuration")).toBe(before + 1);
    // Told to the server's log once per outage, without the token.
    expect(served.logged).toHaveLength(1);
    expect(served.logged[0]).toMatchObject({ level: "warning" });
    expect(JSON.stringify(served.logged)).not.toContain(good.split(".")[2]);
    idp.mode = "up";
    vi.setSystemTime(Date.now() + 7_000);
    expect((await served.ask(good)).status).toBe(200);
  });

  it("it never answers: 503 once the timeout passes", async () => {
    const verify = fresh({ timeoutMs: 100, jwksUri: idp.jwksUri });
    idp.mode = "hang";
    const error = await verify(request(`Bearer ${await token(key, idp.issuer)}`)).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AuthUnavailable);
    expect((error as AuthUnavailable).retryAfterSeconds).toBe(5);
  });

  it("metadata naming another issuer is the provider's garbage: 503", async () => {
    const verify = jwtVerifier({ issuer: `${idp.issuer}/`, audience: RESOURCE });
    await expect(verify(request(`Bearer ${await token(key, `${idp.issuer}/`)}`))).rejects.toBeInstanceOf(
      AuthUnavailable,
    );
  });
});
