import type { AuthInfo } from "@toolsmith/core";
import { invalidToken } from "./refusals.js";

/**
 * The caller a verified token names, as handlers see it in `ctx.auth`. The raw token is never one of its
 * enumerable properties: only a verifier given `exposeToken` adds it, as a non-enumerable `token`.
 */
export interface TokenPrincipal extends AuthInfo {
  /** The token's `sub` (for a client's own token without one, its client id). */
  readonly subject: string;
  /** From `scope` (space-separated) or `scp` (an array or a string), whichever the provider sends. */
  readonly scopes: readonly string[];
  /** The client the token was issued to (`client_id`, else `azp`). */
  readonly clientId?: string;
  /** When the token expires, in seconds since the epoch (`exp`). */
  readonly expiresAt?: number;
  /** Who issued the token (`iss`). */
  readonly issuer?: string;
  /** Every claim the token (or the introspection answer) carried, frozen all the way down (shared while remembered). */
  readonly claims: Readonly<Record<string, unknown>>;
}

// Scope tokens are printable ASCII without space, quote or backslash (RFC 6749 §3.3).
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

function words(value: string): string[] {
  return value.split(" ").filter((word) => SCOPE_TOKEN.test(word));
}

/** The scopes claims grant: `scope` as a space-separated string, or `scp` as an array or a string. */
export function scopesOf(claims: Readonly<Record<string, unknown>>): string[] {
  const { scope, scp } = claims;
  const found = new Set<string>();
  if (typeof scope === "string") for (const word of words(scope)) found.add(word);
  if (typeof scp === "string") for (const word of words(scp)) found.add(word);
  if (Array.isArray(scp)) {
    for (const item of scp) if (typeof item === "string") for (const word of words(item)) found.add(word);
  }
  return [...found];
}

// Claims frozen all the way down (iteratively: a provider may nest deeply), objects and arrays already frozen
// skipped: a remembered token's claims (or introspection answer) are shared by every request that brings it.
function deepFrozen<T extends object>(claims: T): T {
  const pending: object[] = [claims];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    Object.freeze(next);
    for (const value of Object.values(next)) {
      if (typeof value === "object" && value !== null && !Object.isFrozen(value)) pending.push(value);
    }
  }
  return claims;
}

function text(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}

/**
 * The principal verified claims name; `token`, when given, is added as a non-enumerable property so neither
 * `JSON.stringify` nor `inspect` shows it. Claims naming no subject (no `sub`, no `client_id`) are refused: 401.
 */
export function principalOf(claims: Readonly<Record<string, unknown>>, token?: string): TokenPrincipal {
  const clientId = text(claims.client_id) ?? text(claims.azp);
  const subject = text(claims.sub) ?? text(claims.client_id);
  if (subject === undefined) throw invalidToken();
  const principal: { -readonly [K in keyof TokenPrincipal]: TokenPrincipal[K] } = {
    subject,
    scopes: scopesOf(claims),
    claims: deepFrozen({ ...claims }),
  };
  if (clientId !== undefined) principal.clientId = clientId;
  if (typeof claims.exp === "number" && Number.isFinite(claims.exp)) principal.expiresAt = claims.exp;
  const issuer = text(claims.iss);
  if (issuer !== undefined) principal.issuer = issuer;
  if (token !== undefined) Object.defineProperty(principal, "token", { value: token, enumerable: false });
  return principal;
}
