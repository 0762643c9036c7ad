import { type FetchLimits, fetchJson } from "./bounded-fetch.js";
import { type Upstream, type UpstreamAttempt, UpstreamError, type UpstreamTokens } from "./upstream.js";

// A provider reached through plain OAuth 2.0 endpoints (GitHub, or any that is no OpenID provider): PKCE S256 and
// `state` on the way out, the code exchanged at the token endpoint, the person read from the userinfo endpoint.

/** The provider's endpoints and this server's registration with it. */
export interface OAuthUpstreamOptions extends FetchLimits {
  /** Its name for people, shown on the consent page (default the authorization endpoint's host). */
  readonly name?: string;
  readonly authorizationEndpoint: string;
  readonly tokenEndpoint: string;
  /** Where the person is read from with the access token; without it, `subject` is given the token response. */
  readonly userinfoEndpoint?: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** Scopes asked of the provider. */
  readonly scopes: readonly string[];
  /** The person's stable identifier in what the userinfo endpoint answered (GitHub: `String(profile.id)`). */
  readonly subject: (profile: Record<string, unknown>) => string;
  /** How this server authenticates at the token endpoint (default `client_secret_basic`). */
  readonly tokenEndpointAuthMethod?: "client_secret_basic" | "client_secret_post";
  /** More parameters for the authorization URL (`{ access_type: "offline" }`). */
  readonly authorizationParams?: Readonly<Record<string, string>>;
}

/** Where a provider's endpoints are, known at once or once discovered. */
export interface Endpoints {
  readonly authorizationEndpoint: string;
  readonly tokenEndpoint: string;
}

/** The token endpoint's answer read as tokens, or the error it names. */
export function tokensOf(status: number, body: Record<string, unknown>, now: number): UpstreamTokens {
  if (typeof body.error === "string" || status >= 400) {
    // The error code alone: an error_description is the provider's text, possibly echoing what it was sent.
    const code = typeof body.error === "string" ? body.error.slice(0, 64) : `status ${status}`;
    throw new UpstreamError(status >= 500 ? "unavailable" : "refused", `the token endpoint refused: ${code}`);
  }
  const { access_token, refresh_token, expires_in, scope, token_type } = body;
  if (typeof access_token !== "string" || access_token === "") {
    throw new UpstreamError("unavailable", "the token endpoint answered without an access_token");
  }
  if (typeof token_type === "string" && token_type.toLowerCase() !== "bearer") {
    throw new UpstreamError("unavailable", "the token endpoint answered a token that is not a Bearer token");
  }
  return {
    accessToken: access_token,
    ...(typeof refresh_token === "string" && refresh_token !== "" ? { refreshToken: refresh_token } : {}),
    ...(typeof expires_in === "number" && expires_in > 0 ? { expiresAt: now + expires_in * 1000 } : {}),
    ...(typeof scope === "string" ? { scope } : {}),
  };
}

/** What the two kinds of provider share: the authorization URL, the token endpoint's calls. */
export class OAuthClient {
  constructor(
    readonly options: Omit<OAuthUpstreamOptions, "authorizationEndpoint" | "tokenEndpoint" | "subject" | "scopes"> & {
      readonly scopes: readonly string[];
    },
    readonly endpoints: () => Promise<Endpoints>,
  ) {}

  async authorizationUrl(attempt: UpstreamAttempt, extra: Record<string, string> = {}): Promise<string> {
    const url = new URL((await this.endpoints()).authorizationEndpoint);
    const params = {
      ...this.options.authorizationParams,
      ...extra,
      response_type: "code",
      client_id: this.options.clientId,
      redirect_uri: attempt.redirectUri,
      scope: this.options.scopes.join(" "),
      state: attempt.state,
      code_challenge: attempt.codeChallenge,
      code_challenge_method: "S256",
    };
    for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
    return url.href;
  }

  /** A call to the token endpoint with `grant` (this server authenticating as its client), read as the raw body. */
  async token(grant: Record<string, string>): Promise<{ status: number; body: Record<string, unknown> }> {
    const form = new URLSearchParams(grant);
    const headers: Record<string, string> = {
      "content-type": "application/x-www-form-urlencoded",
      accept: "application/json",
    };
    const { clientId, clientSecret } = this.options;
    if (this.options.tokenEndpointAuthMethod === "client_secret_post") {
      form.set("client_id", clientId);
      form.set("client_secret", clientSecret);
    } else {
      // RFC 6749 section 2.3.1: each part form-encoded before the Basic encoding.
      const pair = `${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`;
      headers.authorization = `Basic ${Buffer.from(pair).toString("base64")}`;
    }
    const { tokenEndpoint } = await this.endpoints();
    return fetchJson(tokenEndpoint, { method: "POST", headers, body: form }, this.options, "the token endpoint");
  }

  async exchange(code: string, codeVerifier: string, attempt: UpstreamAttempt) {
    const { status, body } = await this.token({
      grant_type: "authorization_code",
      code,
      redirect_uri: attempt.redirectUri,
      code_verifier: codeVerifier,
    });
    return { tokens: tokensOf(status, body, Date.now()), body };
  }

  async refresh(tokens: UpstreamTokens): Promise<UpstreamTokens> {
    if (tokens.refreshToken === undefined) {
      throw new UpstreamError("refused", "the provider gave no refresh token: the person must sign in again");
    }
    const { status, body } = await this.token({ grant_type: "refresh_token", refresh_token: tokens.refreshToken });
    const fresh = tokensOf(status, body, Date.now());
    // A provider that does not rotate refresh tokens answers without one: the old one stays good.
    return fresh.refreshToken === undefined ? { ...fresh, refreshToken: tokens.refreshToken } : fresh;
  }
}

/** The person's profile at a userinfo endpoint, read with their access token. */
export async function userinfo(endpoint: string, accessToken: string, limits: FetchLimits) {
  const { status, body } = await fetchJson(
    endpoint,
    { headers: { authorization: `Bearer ${accessToken}`, accept: "application/json" } },
    limits,
    "the userinfo endpoint",
  );
  if (status >= 400) throw new UpstreamError("unavailable", `the userinfo endpoint answered ${status}`);
  return body;
}

/** The subject `pick` reads off `profile`, checked to be a non-empty string. */
export function subjectOf(profile: Record<string, unknown>, pick: (profile: Record<string, unknown>) => string) {
  let subject: unknown;
  try {
    subject = pick(profile);
  } catch (error) {
    throw new UpstreamError("unavailable", "the provider's profile names no person (subject threw)", { cause: error });
  }
  if (typeof subject !== "string" || subject === "") {
    throw new UpstreamError("unavailable", "the provider's profile names no person (subject gave no string)");
  }
  return subject;
}

/** A provider reached through plain OAuth 2.0 endpoints (no OpenID discovery), for the OAuth proxy's `upstream`. */
export function oauthUpstream(options: OAuthUpstreamOptions): Upstream {
  const endpoints = Promise.resolve({
    authorizationEndpoint: new URL(options.authorizationEndpoint).href,
    tokenEndpoint: new URL(options.tokenEndpoint).href,
  });
  const client = new OAuthClient(options, () => endpoints);
  return {
    name: options.name ?? new URL(options.authorizationEndpoint).host,
    authorizationUrl: (attempt) => client.authorizationUrl(attempt),
    async exchange(code, codeVerifier, attempt) {
      const { tokens, body } = await client.exchange(code, codeVerifier, attempt);
      const profile =
        options.userinfoEndpoint === undefined
          ? body
          : await userinfo(options.userinfoEndpoint, tokens.accessToken, options);
      return { tokens, subject: subjectOf(profile, options.subject) };
    },
    refresh: (tokens) => client.refresh(tokens),
  };
}
