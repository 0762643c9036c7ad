import { base64url } from "jose";

// Random identifiers (codes, tokens, states) and the PKCE S256 transform (RFC 7636).

/** 32 random bytes, base64url: a code, a token, a state. */
export function randomId(): string {
  return base64url.encode(crypto.getRandomValues(new Uint8Array(32)));
}

/** The S256 challenge of a verifier: base64url(SHA-256(verifier)). */
export async function s256(verifier: string): Promise<string> {
  return base64url.encode(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))));
}

/** RFC 7636 section 4.1: 43 to 128 unreserved characters. A challenge made by S256 is 43. */
export const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;
