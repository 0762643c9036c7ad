import { createRemoteJWKSet, type JWTVerifyGetKey, jwtVerify } from "jose";
import { type FetchLimits, fetchJson } from "./bounded-fetch.js";
import { type Endpoints, OAuthClient, subjectOf, userinfo } from "./oauth-upstream.js";
import { type Upstream, UpstreamError } from "./upstream.js";

// An OpenID provider found by discovery: its endpoints and keys read from the issuer's metadata, the person named by
// the ID token, checked with jose against the issuer's key set (issuer, audience, nonce, expiry).

/** An OpenID provider and this server's registration with it. */
export interface OidcUpstreamOptions extends FetchLimits {
  /** The issuer identifier; its metadata is at `<issuer>/.well-known/openid-configuration`. */
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** Scopes asked of the provider (default `["openid", "email", "profile"]`; `openid` is always asked). */
  readonly scopes?: readonly string[];
  /** Its name for people, shown on the consent page (default the issuer's host). */
  readonly name?: string;
  /** How this server authenticates at the token endpoint (default `client_secret_basic`). */
  readonly tokenEndpointAuthMethod?: "client_secret_basic" | "client_secret_post";
  /** More parameters for the authorization URL (Google's `{ access_type: "offline", prompt: "consent" }`). */
  readonly authorizationParams?: Readonly<Record<string, string>>;
}

interface Discovered extends Endpoints {
  readonly keys: JWTVerifyGetKey;
  readonly userinfoEndpoint?: string;
}

function endpoint(metadata: Record<string, unknown>, name: string, required: true): string;
function endpoint(metadata: Record<string, unknown>, name: string, required: false): string | undefined;
function endpoint(metadata: Record<string, unknown>, name: string, required: boolean): string | undefined {
  const value = metadata[name];
  if (value === undefined && !required) return undefined;
  if (typeof value !== "string" || !URL.canParse(value)) {
    throw new UpstreamError("unavailable", `the issuer's metadata has no valid ${name}`);
  }
  return value;
}

/**
 * An OpenID provider found by discovery from its issuer, for the OAuth proxy's `upstream`: the person is the ID
 * token's `sub`.
 */
export function oidcUpstream(options: OidcUpstreamOptions): Upstream {
  const issuer = options.issuer;
  const scopes = [...new Set(["openid", ...(options.scopes ?? ["email", "profile"])])];
  // Discovered once; a failure is forgotten, so the next sign-in tries again.
  let discovered: Promise<Discovered> | undefined;
  const discover = () => {
    discovered ??= (async () => {
      const url = `${issuer.replace(/\/$/, "")}/.well-known/openid-configuration`;
      const { status, body } = await fetchJson(url, {}, options, "the issuer's metadata");
      if (status !== 200) throw new UpstreamError("unavailable", `the issuer's metadata answered ${status}`);
      if (body.issuer !== issuer) throw new UpstreamError("unavailable", "the issuer's metadata names another issuer");
      const jwksUri = endpoint(body, "jwks_uri", true);
      const userinfoEndpoint = endpoint(body, "userinfo_endpoint", false);
      return {
        authorizationEndpoint: endpoint(body, "authorization_endpoint", true),
        tokenEndpoint: endpoint(body, "token_endpoint", true),
        ...(userinfoEndpoint === undefined ? {} : { userinfoEndpoint }),
        keys: createRemoteJWKSet(new URL(jwksUri), { timeoutDuration: options.timeoutMs ?? 10_000 }),
      };
    })();
    discovered.catch(() => {
      discovered = undefined;
    });
    return discovered;
  };
  const client = new OAuthClient({ ...options, scopes }, discover);
  return {
    name: options.name ?? new URL(issuer).host,
    authorizationUrl: async (attempt) => client.authorizationUrl(attempt, { nonce: attempt.nonce }),
    async exchange(code, codeVerifier, attempt) {
      const { tokens, body } = await client.exchange(code, codeVerifier, attempt);
      const { keys, userinfoEndpoint } = await discover();
      if (typeof body.id_token !== "string") {
        // Without an ID token (a provider that leaves it out), the person is who the userinfo endpoint names.
        if (userinfoEndpoint === undefined) throw new UpstreamError("unavailable", "the provider gave no ID token");
        const profile = await userinfo(userinfoEndpoint, tokens.accessToken, options);
        return { tokens, subject: subjectOf(profile, (each) => each.sub as string) };
      }
      let claims: Record<string, unknown>;
      try {
        ({ payload: claims } = await jwtVerify(body.id_token, keys, { issuer, audience: options.clientId }));
      } catch (error) {
        throw new UpstreamError("unavailable", "the provider's ID token did not verify", { cause: error });
      }
      if (claims.nonce !== attempt.nonce) throw new UpstreamError("unavailable", "the ID token's nonce differs");
      return { tokens, subject: subjectOf(claims, (each) => each.sub as string) };
    },
    refresh: (tokens) => client.refresh(tokens),
  };
}
