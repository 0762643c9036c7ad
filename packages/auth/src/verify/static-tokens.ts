import { createHash, timingSafeEqual } from "node:crypto";
import { bearerToken } from "../tokens/bearer.js";
import type { TokenPrincipal } from "../tokens/principal.js";
import { invalidToken } from "../tokens/refusals.js";
import type { Verifier } from "./jwt-verifier.js";

export interface StaticTokensOptions {
  /** Each token a caller may send, and who it names. */
  readonly tokens: Readonly<Record<string, { readonly subject: string; readonly scopes?: readonly string[] }>>;
  /** Serve a request whose `Host` is not a loopback name (default false: such a request throws). */
  readonly allowRemote?: boolean;
}

function digest(token: string): Buffer {
  return createHash("sha256").update(token).digest();
}

function isLoopback(hostname: string): boolean {
  return hostname === "localhost" || hostname === "[::1]" || /^127(?:\.\d{1,3}){3}$/.test(hostname);
}

/**
 * An `authenticate` hook for development and tests: a fixed table of tokens, compared in constant time (by their
 * SHA-256 digests, every entry every time). It refuses to serve a request whose `Host` is not a loopback name: that
 * request throws (the transport answers 500 and logs why) unless `allowRemote: true` says a fixed token is meant.
 * @example
 * ```ts source="examples/verify.ts#staticTokens"
 * await listen(server, {
 *   port: 3000,
 *   authenticate: staticTokens({ tokens: { "dev-token": { subject: "me", scopes: ["mcp:use"] } } }),
 * });
 * ```
 */
export function staticTokens(options: StaticTokensOptions): Verifier {
  const entries = Object.entries(options.tokens).map(([token, who]) => {
    if (token === "" || typeof who?.subject !== "string" || who.subject.trim() === "") {
      throw new TypeError("staticTokens: every token must be non-empty and name a non-empty subject");
    }
    const principal: TokenPrincipal = { subject: who.subject, scopes: [...(who.scopes ?? [])], claims: {} };
    return { digest: digest(token), principal };
  });
  if (entries.length === 0) throw new TypeError("staticTokens: give it at least one token");
  const remote = options.allowRemote === true;
  return async (request) => {
    if (!remote && !isLoopback(new URL(request.url).hostname)) {
      throw new Error(
        "staticTokens serves loopback hosts only: this request's Host is not one. Fixed tokens are for development; verify real tokens (jwtVerifier, introspectionVerifier), or pass allowRemote: true",
      );
    }
    const token = bearerToken(request);
    if (token === undefined) return undefined;
    const given = digest(token);
    let found: TokenPrincipal | undefined;
    for (const entry of entries) if (timingSafeEqual(entry.digest, given)) found ??= entry.principal;
    if (found === undefined) throw invalidToken();
    return { ...found, scopes: [...found.scopes], claims: {} };
  };
}
