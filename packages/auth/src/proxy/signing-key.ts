import {
  type CryptoKey,
  calculateJwkThumbprint,
  exportJWK,
  generateKeyPair,
  importJWK,
  type JSONWebKeySet,
  type JWK,
  SignJWT,
} from "jose";
import type { Vault } from "../vault/vault.js";

// The key the proxy signs its access tokens with (ES256): given, or made once and kept in the vault with `ifAbsent`,
// so every process of the server signs with the same one and a restart keeps it. Its public half is the JWKS.

/** A year: a key kept longer is made anew, and tokens signed with the old one stop verifying (they live minutes). */
const KEY_TTL_MS = 365 * 24 * 3600_000;

export interface SigningKey {
  readonly kid: string;
  readonly privateKey: CryptoKey;
  readonly publicKey: CryptoKey;
  readonly jwks: JSONWebKeySet;
}

async function fromJwk(jwk: JWK): Promise<SigningKey> {
  if (jwk.kty !== "EC" || jwk.crv !== "P-256" || typeof jwk.d !== "string") {
    throw new TypeError("signingKey must be a private P-256 EC JWK (ES256)");
  }
  const kid = jwk.kid ?? (await calculateJwkThumbprint(jwk));
  const { d: _private, ...publicJwk } = jwk;
  const privateKey = (await importJWK({ ...jwk, kid }, "ES256")) as CryptoKey;
  const publicKey = (await importJWK({ ...publicJwk, kid }, "ES256")) as CryptoKey;
  return { kid, privateKey, publicKey, jwks: { keys: [{ ...publicJwk, kid, alg: "ES256", use: "sig" }] } };
}

/** The signing key: `given`, else the one in the vault (made and kept there, once across processes). */
export function signingKey(vault: Vault, given: JWK | undefined): () => Promise<SigningKey> {
  let loaded: Promise<SigningKey> | undefined;
  const load = async () => {
    if (given !== undefined) return fromJwk(given);
    const kept = await vault.get<JWK>("key", "signing");
    if (kept !== undefined) return fromJwk(kept);
    const { privateKey } = await generateKeyPair("ES256", { extractable: true });
    const made = await exportJWK(privateKey);
    // Of processes making one at once, the first kept wins; each then reads it.
    await vault.put("key", "signing", { ...made, kid: await calculateJwkThumbprint(made) }, KEY_TTL_MS, {
      ifAbsent: true,
    });
    const winner = await vault.get<JWK>("key", "signing");
    if (winner === undefined) throw new Error("the signing key could not be kept in the server's engine");
    return fromJwk(winner);
  };
  return () => {
    loaded ??= load();
    // An engine down at first use is tried again on the next call.
    loaded.catch(() => {
      loaded = undefined;
    });
    return loaded;
  };
}

/** What an access token says: who, for which client and resource, with which scopes, under which grant. */
export interface AccessClaims {
  readonly issuer: string;
  readonly audience: string;
  readonly subject: string;
  readonly clientId: string;
  readonly scope: string;
  readonly grant: string;
  readonly ttlSec: number;
}

/** An access token: a JWT signed with `key` (ES256). */
export function signAccessToken(key: SigningKey, claims: AccessClaims): Promise<string> {
  return new SignJWT({ client_id: claims.clientId, scope: claims.scope, grant: claims.grant })
    .setProtectedHeader({ alg: "ES256", kid: key.kid, typ: "at+jwt" })
    .setIssuer(claims.issuer)
    .setAudience(claims.audience)
    .setSubject(claims.subject)
    .setIssuedAt()
    .setExpirationTime(`${claims.ttlSec}s`)
    .setJti(crypto.randomUUID())
    .sign(key.privateKey);
}
