import { AuthUnavailable } from "@toolsmith/transport-http";
import { bearerOf } from "../tokens/bearer.js";
import { principalOf } from "../tokens/principal.js";
import { checkScopes, invalidToken } from "../tokens/refusals.js";
import { tokenKey } from "../tokens/token-key.js";
import { AnswerCache } from "./answer-cache.js";
import { type IdpLimits, IdpLink, jsonObject } from "./idp-link.js";
import { headerVerifier, type Verifier } from "./jwt-verifier.js";

export interface IntrospectionVerifierOptions extends IdpLimits {
  /** The provider's RFC 7662 introspection endpoint. */
  readonly endpoint: string | URL;
  /** This resource server's credentials there (sent as HTTP Basic, `client_secret_basic`). */
  readonly client: { readonly id: string; readonly secret: string };
  /** When given, an answer's `aud` must include one of these (this server's resource URL). */
  readonly audience?: string | readonly string[];
  /** When given, an answer's `iss`, if it has one, must be this. */
  readonly issuer?: string;
  /** Seconds an answer is reused (default 60); never past the token's `exp`. */
  readonly cacheTtlSec?: number;
  /** Answers kept at most (default 10 000), the least recently used dropped first. */
  readonly cacheMaxEntries?: number;
  /** Scopes every token must grant, else 403 `insufficient_scope`. */
  readonly requiredScopes?: readonly string[];
  /** Adds the raw token to the principal as a non-enumerable `token`. */
  readonly exposeToken?: boolean;
}

// Introspections in flight at most: beyond, a caller is told 503 rather than the provider flooded.
const MAX_ASKING = 64;

// An inactive token is remembered as null: asked again only when its entry goes.
type Answer = Readonly<Record<string, unknown>> | null;

// RFC 6749 §2.3.1: the id and secret are form-encoded before they are joined and base64-encoded.
function basic(id: string, secret: string): string {
  const encode = (value: string) => encodeURIComponent(value).replace(/%20/g, "+");
  return `Basic ${Buffer.from(`${encode(id)}:${encode(secret)}`).toString("base64")}`;
}

// `exp` and `nbf` are NumericDates (RFC 7662 §2.2): one in another form cannot be checked, so its token is refused.
function unreadableTime(value: unknown): boolean {
  return value !== undefined && !(typeof value === "number" && Number.isFinite(value));
}

function audienceMatches(aud: unknown, wanted: readonly string[]): boolean {
  if (typeof aud === "string") return wanted.includes(aud);
  return Array.isArray(aud) && aud.some((one) => typeof one === "string" && wanted.includes(one));
}

/**
 * An `authenticate` hook for opaque tokens: each is asked about at the provider's introspection endpoint (RFC 7662),
 * and the answer kept in a bounded LRU keyed by a hash of the token (never the token), for no longer than
 * `cacheTtlSec` nor the token's `exp`. Inactive, expired or another resource's: 401 `invalid_token`; the endpoint
 * unreachable, slow or answering garbage: `AuthUnavailable` (503).
 * @example
 * ```ts source="examples/verify.ts#introspectionVerifier"
 * const authenticate = introspectionVerifier({
 *   endpoint: "https://idp.example.com/oauth2/introspect",
 *   client: { id: "mcp-server", secret: process.env.INTROSPECTION_SECRET ?? "" },
 *   audience: "https://mcp.example.com/mcp",
 * });
 * ```
 */
export function introspectionVerifier(options: IntrospectionVerifierOptions): Verifier {
  const endpoint = new URL(options.endpoint);
  const idp = new IdpLink(options);
  const authorization = basic(options.client.id, options.client.secret);
  const ttlMs = (options.cacheTtlSec ?? 60) * 1000;
  const cache = new AnswerCache<Answer>(options.cacheMaxEntries ?? 10_000);
  const asking = new Map<string, Promise<Answer>>();
  const audience = typeof options.audience === "string" ? [options.audience] : options.audience;
  const expose = options.exposeToken === true;

  const ask = async (token: string, key: string): Promise<Answer> => {
    const body = new URLSearchParams({ token, token_type_hint: "access_token" }).toString();
    const init = {
      method: "POST",
      headers: { authorization, "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
      body,
    };
    const { body: text } = await idp.fetch(endpoint, init, "token introspection", [200]);
    let said: Record<string, unknown>;
    try {
      said = jsonObject(text);
      if (typeof said.active !== "boolean") throw new Error("the answer has no boolean active");
    } catch (error) {
      throw idp.failed("token introspection", error);
    }
    const now = Date.now();
    const answer = said.active ? said : null;
    const exp = typeof said.exp === "number" ? said.exp * 1000 : Number.POSITIVE_INFINITY;
    cache.set(key, answer, Math.min(now + ttlMs, exp), now);
    return answer;
  };

  const answerFor = (token: string): Answer | Promise<Answer> => {
    const key = tokenKey(token);
    const cached = cache.get(key, Date.now());
    if (cached !== undefined) return cached;
    idp.check();
    let pending = asking.get(key);
    if (pending === undefined) {
      if (asking.size >= MAX_ASKING) {
        throw new AuthUnavailable("Service unavailable: too many tokens are being checked; retry later", 1);
      }
      pending = ask(token, key).finally(() => asking.delete(key));
      asking.set(key, pending);
    }
    return pending;
  };

  const principalFor = (token: string, answer: Answer) => {
    if (answer === null || unreadableTime(answer.exp) || unreadableTime(answer.nbf)) throw invalidToken();
    if (typeof answer.exp === "number" && answer.exp * 1000 <= Date.now()) throw invalidToken("expired");
    if (typeof answer.nbf === "number" && answer.nbf * 1000 > Date.now()) throw invalidToken("not-yet-valid");
    if (audience !== undefined && !audienceMatches(answer.aud, audience)) throw invalidToken("other-resource");
    if (options.issuer !== undefined && answer.iss !== undefined && answer.iss !== options.issuer) throw invalidToken();
    const principal = principalOf(answer, expose ? token : undefined);
    checkScopes(principal.scopes, options.requiredScopes);
    return principal;
  };

  // A remembered answer is checked at once; one being asked for, once it comes.
  return headerVerifier((authorization) => {
    const token = bearerOf(authorization);
    if (token === undefined) return undefined;
    const answer = answerFor(token);
    return answer instanceof Promise ? answer.then((said) => principalFor(token, said)) : principalFor(token, answer);
  });
}
