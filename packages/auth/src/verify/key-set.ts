import { AuthUnavailable } from "@toolsmith/transport-http";
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  customFetch,
  errors,
  type FetchImplementation,
  type JSONWebKeySet,
  type JWTVerifyGetKey,
  type RemoteJWKSet,
} from "jose";
import { discoverJwksUri } from "./discovery.js";
import { type IdpLink, jsonObject } from "./idp-link.js";

/** Where the keys that sign tokens come from. */
export interface KeySetOptions {
  readonly issuer: string;
  /** The key set's URL; by default the `jwks_uri` of the issuer's metadata. */
  readonly jwksUri?: string | URL;
  /** A local key set (`{ keys: [...] }`) instead of a fetched one. */
  readonly jwks?: JSONWebKeySet;
  /** Seconds after a fetch before a `kid` the set lacks makes another (default 30). */
  readonly jwksCooldownSec?: number;
}

/**
 * The key for a token's header, from a local set or the issuer's, fetched lazily through `idp` and kept (jose's
 * `createRemoteJWKSet`: a `kid` it lacks refetches once per cooldown, however many tokens name one; a fetch in
 * flight is shared). A set that cannot be fetched is `AuthUnavailable`; a key it does not hold is jose's error.
 */
export function keySet(options: KeySetOptions, idp: IdpLink): JWTVerifyGetKey {
  if (options.jwks !== undefined) return createLocalJWKSet(options.jwks);
  const given = options.jwksUri === undefined ? undefined : new URL(options.jwksUri);
  const fetchKeys: FetchImplementation = async (url, init) => {
    const answer = await idp.fetch(url, init, "its key set", [200]);
    try {
      if (!Array.isArray(jsonObject(answer.body).keys)) throw new Error("the answer is not a JSON Web Key Set");
    } catch (error) {
      throw idp.failed("its key set", error);
    }
    return new Response(answer.body, { status: 200, headers: { "content-type": "application/json" } });
  };
  const remote = (url: URL) =>
    createRemoteJWKSet(url, {
      timeoutDuration: idp.timeoutMs,
      cooldownDuration: (options.jwksCooldownSec ?? 30) * 1000,
      [customFetch]: fetchKeys,
    });
  let keys: RemoteJWKSet | undefined = given && remote(given);
  let finding: Promise<RemoteJWKSet> | undefined;
  const found = (): RemoteJWKSet | Promise<RemoteJWKSet> => {
    if (keys !== undefined) return keys;
    idp.check();
    finding ??= discoverJwksUri(options.issuer, idp).then(
      (url) => (keys = remote(url)),
      (error: unknown) => {
        finding = undefined;
        throw error;
      },
    );
    return finding;
  };
  return async (header, token) => {
    const set = await found();
    try {
      return await set(header, token);
    } catch (error) {
      if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys) throw error;
      if (error instanceof AuthUnavailable) throw error;
      throw idp.failed("its key set", error);
    }
  };
}
