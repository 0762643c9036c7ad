import type { AuthInfo, MaybePromise } from "@toolsmith/core";
import { AuthUnavailable } from "@toolsmith/transport-http";
import { errors, type JSONWebKeySet, jwtVerify } from "jose";
import { bearerText, MAX_TOKEN_CHARS, wellFormed } from "../tokens/bearer.js";
import { principalOf, type TokenPrincipal } from "../tokens/principal.js";
import { checkScopes, invalidToken } from "../tokens/refusals.js";
import { tokenKey } from "../tokens/token-key.js";
import { AnswerCache } from "./answer-cache.js";
import { type IdpLimits, IdpLink } from "./idp-link.js";
import { keySet } from "./key-set.js";

/** An `authenticate` hook for `listen`/`createHttpHandler`: the caller, undefined for no token, or it throws. */
export type Verifier = ((request: Request) => Promise<AuthInfo | undefined>) & {
  /**
   * The same check from the `Authorization` header alone (transport-http then makes no Request for the hook); it
   * may answer at once (a remembered token), and may throw instead of rejecting.
   */
  readonly fromAuthorization?: (authorization: string | null) => MaybePromise<AuthInfo | undefined>;
};

/** A verifier that reads only the `Authorization` header: the hook, and the same check from the header alone. */
export function headerVerifier(check: (authorization: string | null) => MaybePromise<AuthInfo | undefined>): Verifier {
  return Object.assign(async (request: Request) => check(request.headers.get("authorization")), {
    fromAuthorization: check,
  });
}

export interface JwtVerifierOptions extends IdpLimits {
  /** The issuer the tokens must name in `iss`, exactly. */
  readonly issuer: string;
  /** This server's resource URL (RFC 8707), or several: a token's `aud` must include one. */
  readonly audience: string | readonly string[];
  /** The key set's URL; by default the `jwks_uri` of the issuer's metadata (OpenID, then RFC 8414). */
  readonly jwksUri?: string | URL;
  /** A local key set (`{ keys: [...] }`) instead of a fetched one. */
  readonly jwks?: JSONWebKeySet;
  /** Signature algorithms accepted (default: the asymmetric ones). `none` and HMAC are refused. */
  readonly algorithms?: readonly string[];
  /** Seconds of clock skew allowed on `exp` and `nbf` (default 30). */
  readonly clockToleranceSec?: number;
  /** Scopes every token must grant, else 403 `insufficient_scope`. */
  readonly requiredScopes?: readonly string[];
  /** Adds the raw token to the principal as a non-enumerable `token` (for a handler that passes it on). */
  readonly exposeToken?: boolean;
  /** Seconds after a key set fetch before a `kid` it lacks makes another (default 30). */
  readonly jwksCooldownSec?: number;
  /**
   * Tokens whose verification is remembered (by their SHA-256, for at most a minute and never past `exp`), so a
   * client's next request skips the signature check: default 1000, 0 for none.
   */
  readonly verifiedMaxEntries?: number;
}

// A JWS in compact form: header, payload and signature, base64url, joined by dots (RFC 7515 §7.1).
const COMPACT_JWS = /^[\w-]+\.[\w-]+\.[\w-]+$/;

// How long a verified token is remembered at most: a key withdrawn from the set stops counting within this.
const VERIFIED_TTL_MS = 60_000;

/** The algorithms accepted by default: asymmetric signatures only. */
export const DEFAULT_ALGORITHMS: readonly string[] = [
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
  "Ed25519",
];

function checkedAlgorithms(algorithms: readonly string[] | undefined): string[] {
  const chosen = [...(algorithms ?? DEFAULT_ALGORITHMS)];
  const refused = chosen.filter((alg) => alg.toLowerCase() === "none" || /^HS/i.test(alg));
  if (chosen.length === 0 || refused.length > 0) {
    throw new TypeError(
      `jwtVerifier: algorithms must be asymmetric signature algorithms (RS256, ES256, EdDSA…); refused: ${refused.join(", ") || "(an empty list)"}`,
    );
  }
  return chosen;
}

// `typ`, when a token has one, must say it is an access token or a JWT (RFC 9068 §2.1).
function typeAllowed(typ: unknown): boolean {
  if (typ === undefined) return true;
  if (typeof typ !== "string") return false;
  const type = typ.toLowerCase().replace(/^application\//, "");
  return type === "at+jwt" || type === "jwt";
}

// What a token that jose refused is told; anything not jose's is passed on (the provider's 503 among them).
function refusal(error: unknown): unknown {
  if (error instanceof AuthUnavailable || !(error instanceof errors.JOSEError)) return error;
  if (error instanceof errors.JWTExpired) return invalidToken("expired");
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === "nbf") return invalidToken("not-yet-valid");
    if (error.claim === "aud") return invalidToken("other-resource");
  }
  return invalidToken();
}

// One principal serves every request that brings its token: nothing a handler does to it reaches the next.
function frozen(principal: TokenPrincipal): TokenPrincipal {
  Object.freeze(principal.scopes);
  return Object.freeze(principal);
}

/**
 * An `authenticate` hook that accepts the JWT access tokens an issuer signs: signature (an allowed algorithm, a key
 * of the issuer's set), `iss`, `aud`, `exp` and `nbf`, then `requiredScopes`.
 * No `Authorization` header: undefined (the transport's 401). A bad token: `AuthError` 401 `invalid_token`; a good
 * one without a required scope: 403 `insufficient_scope`; the issuer unreachable: `AuthUnavailable` (503).
 * @example
 * ```ts source="examples/verify.ts#jwtVerifier"
 * const authenticate = jwtVerifier({
 *   issuer: "https://idp.example.com",
 *   audience: "https://mcp.example.com/mcp",
 *   requiredScopes: ["mcp:use"],
 * });
 * await listen(server, { port: 3000, allowedHosts: ["mcp.example.com"], authenticate });
 * ```
 */
export function jwtVerifier(options: JwtVerifierOptions): Verifier {
  const algorithms = checkedAlgorithms(options.algorithms);
  const audience = typeof options.audience === "string" ? [options.audience] : [...options.audience];
  if (audience.length === 0 || audience.some((aud) => typeof aud !== "string" || aud === "")) {
    throw new TypeError("jwtVerifier: audience must name this server's resource URL");
  }
  if (typeof options.issuer !== "string" || !URL.canParse(options.issuer)) {
    throw new TypeError("jwtVerifier: issuer must be the issuer's URL, exactly as its tokens name it");
  }
  if (options.jwks !== undefined && options.jwksUri !== undefined) {
    throw new TypeError("jwtVerifier: give jwks (a local key set) or jwksUri (a fetched one), not both");
  }
  const tolerance = options.clockToleranceSec ?? 30;
  if (!(tolerance >= 0 && Number.isFinite(tolerance))) {
    throw new TypeError("jwtVerifier: clockToleranceSec must be a number of seconds, 0 or more");
  }
  const keys = keySet(options, new IdpLink(options));
  const checks = {
    issuer: options.issuer,
    audience,
    algorithms,
    clockTolerance: tolerance,
    requiredClaims: ["exp"],
  };
  const required = options.requiredScopes;
  const expose = options.exposeToken === true;
  // The principal a verified token names, frozen, so a request that brings the token again is answered at once.
  const remembered = new AnswerCache<TokenPrincipal>(options.verifiedMaxEntries ?? 1000);
  const verified = async (token: string, key: string): Promise<TokenPrincipal> => {
    let result: Awaited<ReturnType<typeof jwtVerify>>;
    try {
      result = await jwtVerify(token, keys, checks);
    } catch (error) {
      throw refusal(error);
    }
    if (!typeAllowed(result.protectedHeader.typ)) throw invalidToken();
    const claims = result.payload;
    const principal = frozen(principalOf(claims, expose ? token : undefined));
    const now = Date.now();
    if (key !== "") remembered.set(key, principal, Math.min(now + VERIFIED_TTL_MS, (claims.exp ?? 0) * 1000), now);
    return principal;
  };
  const allowed = (principal: TokenPrincipal): TokenPrincipal => {
    checkScopes(principal.scopes, required);
    return principal;
  };
  return headerVerifier((authorization) => {
    const token = bearerText(authorization);
    if (token === undefined) return undefined;
    // Known by its hash, a token passed the format check when it was verified: only a new one is checked.
    const key = remembered.maxEntries > 0 && token.length <= MAX_TOKEN_CHARS ? tokenKey(token) : "";
    const known = key === "" ? undefined : remembered.get(key, Date.now());
    if (known !== undefined) return allowed(known);
    if (!wellFormed(token)) throw invalidToken("malformed");
    // Not three dot-separated parts, it is no signed JWT: refused at once (an opaque token, for anyVerifier's next).
    if (!COMPACT_JWS.test(token)) throw invalidToken();
    return verified(token, key).then(allowed);
  });
}
