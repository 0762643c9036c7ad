import { AuthUnavailable } from "@toolsmith/transport-http";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { until } from "../../../../scripts/wait.js";
import type { TokenPrincipal } from "../tokens/principal.js";
import { RESOURCE, request, startIdp, type TestIdp } from "./idp.test-util.js";
import { introspectionVerifier } from "./introspection-verifier.js";
import { errorOf, protectedServer } from "./serve.test-util.js";

// introspectionVerifier against an RFC 7662 endpoint of our own on 127.0.0.1: what each answer becomes, how long
// it is reused, and what a caller is told when the endpoint is down.

let idp: TestIdp;
beforeAll(async () => {
  idp = await startIdp();
});
afterAll(() => idp.close());
afterEach(() => {
  vi.useRealTimers();
  idp.mode = "up";
  idp.answers.clear();
});

const now = () => Math.floor(Date.now() / 1000);
const CLIENT = { id: "rs", secret: "s:cret" };
let serial = 0;
/** A fresh opaque token, and what the endpoint says of it. */
function opaque(answer: Record<string, unknown> | undefined): string {
  const value = `opaque-${++serial}-${"x".repeat(24)}`;
  if (answer) idp.answers.set(value, answer);
  return value;
}
const verifier = (extra: Partial<Parameters<typeof introspectionVerifier>[0]> = {}) =>
  introspectionVerifier({ endpoint: idp.introspectionUri, client: CLIENT, audience: RESOURCE, ...extra });

describe("introspectionVerifier", () => {
  it("an active token names its principal; asked with HTTP Basic (form-encoded secret) and the token", async () => {
    const exp = now() + 600;
    const token = opaque({ active: true, sub: "bob", scope: "a b", client_id: "app", exp, aud: RESOURCE });
    const principal = (await verifier()(request(`Bearer ${token}`))) as TokenPrincipal;
    expect(principal).toMatchObject({ subject: "bob", scopes: ["a", "b"], clientId: "app", expiresAt: exp });
    expect("token" in principal).toBe(false);
    expect(new URLSearchParams(idp.introspected.at(-1))).toEqual(
      new URLSearchParams({ token, token_type_hint: "access_token" }),
    );
  });

  it.each([
    ["inactive", { active: false }, "not valid"],
    ["unknown to the provider", undefined, "not valid"],
    ["expired though still said active", { active: true, sub: "bob", exp: now() - 10, aud: RESOURCE }, "expired"],
    ["for another resource", { active: true, sub: "bob", aud: "http://127.0.0.1/other" }, "this resource"],
    ["with no subject", { active: true, aud: RESOURCE }, "not valid"],
    [
      "whose exp is a string, in the past",
      { active: true, sub: "bob", exp: String(now() - 10), aud: RESOURCE },
      "not valid",
    ],
    [
      "whose nbf is a string, in the future",
      { active: true, sub: "bob", nbf: `${now() + 600}`, aud: RESOURCE },
      "not valid",
    ],
    ["whose exp is not finite", { active: true, sub: "bob", exp: null, aud: RESOURCE }, "not valid"],
  ])("a token %s: 401 invalid_token, the token neither told nor logged", async (_name, answer, said) => {
    const token = opaque(answer);
    const served = protectedServer(verifier());
    const told = await served.ask(`Bearer ${token}`);
    expect([told.status, errorOf(told.challenge)]).toEqual([401, "invalid_token"]);
    expect(told.challenge).toContain(said);
    expect(told.body + told.challenge + JSON.stringify(served.logged)).not.toContain(token);
  });

  it("answers are reused until the TTL, never past the token's exp, keyed by a hash (a flood of one token asks once)", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() });
    const verify = verifier({ cacheTtlSec: 60 });
    const long = opaque({ active: true, sub: "bob", exp: now() + 3600, aud: RESOURCE });
    const short = opaque({ active: true, sub: "eve", exp: now() + 20, aud: RESOURCE });
    const asked = () => idp.count("/introspect");
    const base = asked();
    await Promise.all(Array.from({ length: 20 }, () => verify(request(`Bearer ${long}`))));
    expect(asked()).toBe(base + 1);
    await verify(request(`Bearer ${short}`));
    await verify(request(`Bearer ${short}`));
    expect(asked()).toBe(base + 2);
    // 30 s on: the short token expired (refused without asking), the long one still cached.
    vi.setSystemTime(Date.now() + 30_000);
    await expect(verify(request(`Bearer ${short}`))).rejects.toMatchObject({ status: 401 });
    await verify(request(`Bearer ${long}`));
    expect(asked()).toBe(base + 3);
    // Past the TTL: asked again, and a token revoked meanwhile is refused.
    idp.answers.set(long, { active: false });
    vi.setSystemTime(Date.now() + 31_000);
    await expect(verify(request(`Bearer ${long}`))).rejects.toMatchObject({ status: 401 });
    expect(asked()).toBe(base + 4);
  });

  it("a remembered answer's nested claims are frozen: a handler emptying aud cannot refuse the next request", async () => {
    const verify = verifier();
    const token = opaque({ active: true, sub: "bob", aud: [RESOURCE], realm: { roles: ["user"] } });
    const principal = (await verify(request(`Bearer ${token}`))) as TokenPrincipal;
    expect(() => (principal.claims.aud as string[]).splice(0)).toThrow(TypeError);
    expect(() => (principal.claims.realm as { roles: string[] }).roles.push("admin")).toThrow(TypeError);
    const next = (await verify(request(`Bearer ${token}`))) as TokenPrincipal;
    expect(next.claims).toMatchObject({ aud: [RESOURCE], realm: { roles: ["user"] } });
  });

  it("the cache is bounded: the least recently used answer goes first (recency counted by the second)", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() });
    const verify = verifier({ cacheMaxEntries: 2 });
    const tokens = [1, 2, 3].map(() => opaque({ active: true, sub: "bob", aud: RESOURCE }));
    const base = idp.count("/introspect");
    for (const token of tokens) await verify(request(`Bearer ${token}`));
    await verify(request(`Bearer ${tokens[2]}`));
    await verify(request(`Bearer ${tokens[1]}`));
    expect(idp.count("/introspect")).toBe(base + 3);
    // A second on, tokens[1] read again is the most recent: tokens[0] coming back pushes out tokens[2].
    vi.setSystemTime(Date.now() + 1_000);
    await verify(request(`Bearer ${tokens[1]}`));
    await verify(request(`Bearer ${tokens[0]}`));
    expect(idp.count("/introspect")).toBe(base + 4);
    await verify(request(`Bearer ${tokens[1]}`));
    expect(idp.count("/introspect")).toBe(base + 4);
    await verify(request(`Bearer ${tokens[2]}`));
    expect(idp.count("/introspect")).toBe(base + 5);
  });

  it("requiredScopes: an active token without them is 403 insufficient_scope", async () => {
    const served = protectedServer(verifier({ requiredScopes: ["mcp"] }));
    const told = await served.ask(`Bearer ${opaque({ active: true, sub: "bob", scope: "x", aud: RESOURCE })}`);
    expect([told.status, errorOf(told.challenge)]).toEqual([403, "insufficient_scope"]);
    expect(
      (await served.ask(`Bearer ${opaque({ active: true, sub: "bob", scope: "mcp", aud: RESOURCE })}`)).status,
    ).toBe(200);
  });

  it.each(["drop", "garbage"] as const)(
    "the endpoint answers %s: 503 Retry-After, backed off, then recovers",
    async (mode) => {
      vi.useFakeTimers({ toFake: ["Date"], now: Date.now() });
      const served = protectedServer(verifier({ retryAfterSec: 4 }));
      const token = opaque({ active: true, sub: "bob", aud: RESOURCE });
      idp.mode = mode;
      const base = idp.count("/introspect");
      const told = await served.ask(`Bearer ${token}`);
      expect([told.status, told.retryAfter]).toEqual([503, "4"]);
      expect((await served.ask(`Bearer ${opaque(undefined)}`)).status).toBe(503);
      expect(idp.count("/introspect")).toBe(base + 1);
      expect(told.body + JSON.stringify(served.logged)).not.toContain(token);
      idp.mode = "up";
      vi.setSystemTime(Date.now() + 4_000);
      expect((await served.ask(`Bearer ${token}`)).status).toBe(200);
    },
  );

  it("wrong client credentials (the endpoint's 401) are the provider unreachable for us: 503, not the caller's 401", async () => {
    const verify = verifier({ client: { id: "rs", secret: "wrong" } });
    const token = opaque({ active: true, sub: "bob", aud: RESOURCE });
    await expect(verify(request(`Bearer ${token}`))).rejects.toBeInstanceOf(AuthUnavailable);
  });

  it("an endpoint that never answers: 503 once the timeout passes; one that answers too much: 503", async () => {
    idp.mode = "hang";
    const slow = verifier({ timeoutMs: 100 });
    await expect(slow(request(`Bearer ${opaque(undefined)}`))).rejects.toBeInstanceOf(AuthUnavailable);
    idp.mode = "up";
    const token = opaque({ active: true, sub: "bob", aud: RESOURCE, padding: "p".repeat(10_000) });
    await expect(verifier({ maxResponseBytes: 1000 })(request(`Bearer ${token}`))).rejects.toBeInstanceOf(
      AuthUnavailable,
    );
  });

  it("asks in flight are bounded: beyond 64, a caller is told 503 at once, and nothing waits on the hung ones", async () => {
    const hung = await startIdp();
    hung.mode = "hang";
    const verify = introspectionVerifier({ endpoint: hung.introspectionUri, client: CLIENT, timeoutMs: 600_000 });
    const pending = Array.from({ length: 64 }, (_, i) => verify(request(`Bearer hung-${i}`)).catch((error) => error));
    await until(() => hung.count("/introspect") === 64, "64 introspections at the endpoint");
    const refused = await verify(request("Bearer one-too-many")).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AuthUnavailable);
    expect((refused as Error).message).toMatch(/too many/);
    await hung.close();
    for (const outcome of await Promise.all(pending)) expect(outcome).toBeInstanceOf(AuthUnavailable);
    expect(hung.count("/introspect")).toBe(64);
  });
});
