import { invalidToken } from "./refusals.js";

/** The longest token read: a header longer than this is refused before any work is done on it. */
export const MAX_TOKEN_CHARS = 16_384;

// RFC 6750 §2.1's b64token: the characters a bearer token is made of.
const B64TOKEN = /^[A-Za-z0-9\-._~+/]+=*$/;

/**
 * The bearer token a request carries, undefined when it has no `Authorization: Bearer` header (the transport's
 * 401 that asks for one). A bearer header whose token is empty, too long or not a b64token is refused: 401.
 */
export function bearerToken(request: Request): string | undefined {
  return bearerOf(request.headers.get("authorization"));
}

/** `bearerToken` of an `Authorization` header's value (null: none). */
export function bearerOf(header: string | null): string | undefined {
  const token = bearerText(header);
  if (token !== undefined && !wellFormed(token)) throw invalidToken("malformed");
  return token;
}

/**
 * What follows `Bearer ` in an `Authorization` header, trimmed and not yet checked against b64token (undefined: no
 * bearer header): a token verified before is known by it without the check, which `bearerOf` makes.
 */
export function bearerText(header: string | null): string | undefined {
  if (header === null) return undefined;
  const space = header.indexOf(" ");
  if (space < 0) {
    if (header.length === 6 && header.toLowerCase() === "bearer") throw invalidToken("malformed");
    return undefined;
  }
  if (space !== 6 || header.slice(0, 6).toLowerCase() !== "bearer") return undefined;
  return header.slice(7).trim();
}

/** True for a token `bearerText` read that is not empty, not too long, and a b64token (RFC 6750 §2.1). */
export function wellFormed(token: string): boolean {
  return token.length > 0 && token.length <= MAX_TOKEN_CHARS && B64TOKEN.test(token);
}
