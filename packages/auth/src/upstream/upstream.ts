// What the OAuth proxy needs of the identity provider behind it: where to send a person, what their code is worth,
// how to refresh what it gave. The person is the provider's subject; its tokens stay on the server.

/** The provider's tokens for one person, kept sealed on the server's engine and never sent to an MCP client. */
export interface UpstreamTokens {
  readonly accessToken: string;
  readonly refreshToken?: string;
  /** When the access token expires, in milliseconds since the epoch; undefined when the provider did not say. */
  readonly expiresAt?: number;
  readonly scope?: string;
}

/** What the provider's token endpoint gave for a code: the tokens and the person they belong to. */
export interface UpstreamGrant {
  readonly tokens: UpstreamTokens;
  /** The provider's stable identifier of the person (an OIDC `sub`, a GitHub user id). */
  readonly subject: string;
}

/** One sign-in at the provider: the values the proxy made for it, sent out and checked on the way back. */
export interface UpstreamAttempt {
  /** Where the provider sends the person back (the proxy's `/oauth/callback`). */
  readonly redirectUri: string;
  readonly state: string;
  /** The PKCE S256 challenge of `codeVerifier`, sent to the provider. */
  readonly codeChallenge: string;
  readonly nonce: string;
}

/** An identity provider the OAuth proxy signs people in with: `oidcUpstream`, `oauthUpstream` or a preset. */
export interface Upstream {
  /** Its name for people ("GitHub"), shown on the consent page. */
  readonly name: string;
  /** The provider's authorization URL for this attempt. */
  authorizationUrl(attempt: UpstreamAttempt): Promise<string>;
  /** The code the provider sent back, exchanged at its token endpoint; an `UpstreamError` when that fails. */
  exchange(code: string, codeVerifier: string, attempt: UpstreamAttempt): Promise<UpstreamGrant>;
  /** Fresh tokens for expired ones (their refresh token); an `UpstreamError` when there is none or it failed. */
  refresh(tokens: UpstreamTokens): Promise<UpstreamTokens>;
}

/**
 * The provider failed: `unavailable` (down, slow, or answering garbage: try later), or `refused` (it turned the
 * request down: a bad code, a revoked refresh token). Its message names no token.
 */
export class UpstreamError extends Error {
  override readonly name = "UpstreamError";
  constructor(
    readonly reason: "unavailable" | "refused",
    message: string,
    options?: { readonly cause?: unknown },
  ) {
    super(message, options);
  }
}
