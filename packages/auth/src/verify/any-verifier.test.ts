import { AuthError, AuthUnavailable } from "@toolsmith/transport-http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { anyVerifier } from "./any-verifier.js";
import { RESOURCE, request, type SigningKey, signingKey, startIdp, type TestIdp, token } from "./idp.test-util.js";
import { introspectionVerifier } from "./introspection-verifier.js";
import type { Verifier } from "./jwt-verifier.js";
import { jwtVerifier } from "./jwt-verifier.js";
import { errorOf, protectedServer } from "./serve.test-util.js";

// anyVerifier: JWTs first, opaque tokens by introspection after; who wins, and which refusal is kept.

let idp: TestIdp;
let key: SigningKey;
beforeAll(async () => {
  idp = await startIdp();
  key = await signingKey("k1");
  idp.keys = [key];
});
afterAll(() => idp.close());

const refusing =
  (error: unknown): Verifier =>
  async () => {
    throw error;
  };
const naming =
  (subject: string): Verifier =>
  async () => ({ subject, scopes: [] });
const none: Verifier = async () => undefined;

describe("anyVerifier", () => {
  it("a JWT is read by the JWT verifier, an opaque token by introspection", async () => {
    idp.answers.set("opaque-token-for-carol", { active: true, sub: "carol", aud: RESOURCE });
    const verify = anyVerifier(
      jwtVerifier({ issuer: idp.issuer, audience: RESOURCE }),
      introspectionVerifier({
        endpoint: idp.introspectionUri,
        client: { id: "rs", secret: "s:cret" },
        audience: RESOURCE,
      }),
    );
    expect(await verify(request(`Bearer ${await token(key, idp.issuer)}`))).toMatchObject({ subject: "alice" });
    expect(await verify(request("Bearer opaque-token-for-carol"))).toMatchObject({ subject: "carol" });
    const told = await protectedServer(verify).ask("Bearer opaque-token-unknown");
    expect([told.status, errorOf(told.challenge)]).toEqual([401, "invalid_token"]);
    expect(await verify(request())).toBeUndefined();
  });

  it("a 401 lets the next try; the first principal wins", async () => {
    const verify = anyVerifier(refusing(new AuthError(401, "no")), none, naming("b"), naming("c"));
    expect(await verify(request("Bearer x"))).toMatchObject({ subject: "b" });
  });

  it("none succeeding: a 503 is kept over any 401; else the first 401; else undefined", async () => {
    const down = new AuthUnavailable("down", 3);
    const first = new AuthError(401, "first");
    await expect(
      anyVerifier(refusing(first), refusing(down), refusing(new AuthError(401, "x")))(request()),
    ).rejects.toBe(down);
    await expect(anyVerifier(none, refusing(first), refusing(new AuthError(401, "x")))(request())).rejects.toBe(first);
    expect(await anyVerifier(none, none)(request())).toBeUndefined();
  });

  it("a 403 or a verifier's own failure is the answer at once", async () => {
    const forbidden = new AuthError(403, "scope");
    await expect(anyVerifier(refusing(forbidden), naming("b"))(request())).rejects.toBe(forbidden);
    const bug = new TypeError("bug");
    await expect(anyVerifier(refusing(bug), naming("b"))(request())).rejects.toBe(bug);
    expect(() => anyVerifier()).toThrow(TypeError);
  });
});

describe("from the Authorization header alone", () => {
  it("jwtVerifier and introspectionVerifier check a token from the header; anyVerifier can when all of them can", async () => {
    const jwts = jwtVerifier({ issuer: idp.issuer, audience: RESOURCE });
    const opaques = introspectionVerifier({ endpoint: idp.introspectionUri, client: { id: "rs", secret: "s" } });
    const signed = await token(key, idp.issuer, { sub: "dave" });
    expect(await jwts.fromAuthorization?.(`Bearer ${signed}`)).toMatchObject({ subject: "dave" });
    expect(await jwts.fromAuthorization?.(null)).toBeUndefined();
    expect(opaques.fromAuthorization).toBeTypeOf("function");
    const both = anyVerifier(jwts, opaques);
    expect(await both.fromAuthorization?.(`Bearer ${signed}`)).toMatchObject({ subject: "dave" });
    expect(anyVerifier(jwts, naming("eve")).fromAuthorization).toBeUndefined();
  });
});
