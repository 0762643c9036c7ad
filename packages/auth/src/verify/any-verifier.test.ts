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

  it("a remembered token is answered at once, by any of them; a refusal at once lets the next try, at once or later", async () => {
    idp.answers.set("opaque-token-for-frank", { active: true, sub: "frank", aud: RESOURCE });
    const jwts = jwtVerifier({ issuer: idp.issuer, audience: RESOURCE, jwks: { keys: [key.jwk] } });
    const opaques = introspectionVerifier({ endpoint: idp.introspectionUri, client: { id: "rs", secret: "s:cret" } });
    const both = anyVerifier(jwts, opaques);
    const check = both.fromAuthorization as NonNullable<Verifier["fromAuthorization"]>;
    const signed = await token(key, idp.issuer, { sub: "gina" });
    // First seen: each verifier has work to do (a signature, an introspection), so the answer comes later.
    const first = check(`Bearer ${signed}`);
    expect(first).toBeInstanceOf(Promise);
    expect(await first).toMatchObject({ subject: "gina" });
    expect(check(`Bearer ${signed}`)).toMatchObject({ subject: "gina" });
    expect(await check("Bearer opaque-token-for-frank")).toMatchObject({ subject: "frank" });
    // The JWT verifier refuses an opaque token at once (malformed); introspection's remembered answer is at once.
    expect(check("Bearer opaque-token-for-frank")).toMatchObject({ subject: "frank" });
    expect(check(null)).toBeUndefined();
    // A thenable that is no Promise is waited for like one.
    const lazy = Object.assign(naming("hal"), {
      // biome-ignore lint/suspicious/noThenProperty: a thenable that is no Promise, which it exists to test.
      fromAuthorization: () => ({ then: (done: (value: unknown) => void) => done({ subject: "hal", scopes: [] }) }),
    }) as unknown as Verifier;
    const silent = Object.assign(none, { fromAuthorization: () => undefined });
    const viaThenable = anyVerifier(silent, lazy).fromAuthorization?.("Bearer x");
    expect(await viaThenable).toMatchObject({ subject: "hal" });
    // A refusal at once from the first, then a principal at once from the next.
    const refusedAtOnce = Object.assign(refusing(new AuthError(401, "no")), {
      fromAuthorization: () => {
        throw new AuthError(401, "no");
      },
    });
    const atOnce = Object.assign(naming("ida"), { fromAuthorization: () => ({ subject: "ida", scopes: [] }) });
    expect(anyVerifier(refusedAtOnce, atOnce).fromAuthorization?.("Bearer x")).toMatchObject({ subject: "ida" });
    expect(() => anyVerifier(refusedAtOnce, silent).fromAuthorization?.("Bearer x")).toThrow("no");
  });
});

describe("the same answer whether each verifier answers at once or later, in any mix", () => {
  type Said = () => unknown;
  const BEHAVIOURS: Record<string, Said> = {
    "401": () => {
      throw new AuthError(401, "no");
    },
    "403": () => {
      throw new AuthError(403, "no scope");
    },
    "503": () => {
      throw new AuthUnavailable("down", 3);
    },
    bug: () => {
      throw new TypeError("a verifier's bug");
    },
    none: () => undefined,
    null: () => null,
    ann: () => ({ subject: "ann", scopes: [] }),
  };
  const verifierOf = (said: Said, later: boolean): Verifier => {
    const check = later ? async () => said() : said;
    return Object.assign(async () => said(), { fromAuthorization: check }) as unknown as Verifier;
  };
  const outcome = async (verify: Verifier): Promise<string> => {
    try {
      const found = (await verify.fromAuthorization?.("Bearer x")) as { subject: string } | null | undefined;
      return `found ${found?.subject ?? String(found)}`;
    } catch (error) {
      return `threw ${error instanceof AuthError ? error.status : (error as Error).message}`;
    }
  };

  it("every pair and triple of refusals, principals and bugs, each at once or later", async () => {
    const names = Object.keys(BEHAVIOURS);
    const lists = names.flatMap((a) => names.flatMap((b) => [[a, b], ...names.map((c) => [a, b, c])]));
    const differing: string[] = [];
    for (const list of lists) {
      const later = await outcome(anyVerifier(...list.map((name) => verifierOf(BEHAVIOURS[name] as Said, true))));
      for (let mask = 0; mask < 2 ** list.length - 1; mask++) {
        const mixed = list.map((name, index) => verifierOf(BEHAVIOURS[name] as Said, ((mask >> index) & 1) === 1));
        const said = await outcome(anyVerifier(...mixed));
        if (said !== later) differing.push(`${list.join(",")} (mask ${mask}): ${said}, later ${later}`);
      }
    }
    expect(differing).toEqual([]);
  });
});
