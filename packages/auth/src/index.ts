/**
 * `@toolsmith/auth`: sign-in for a remote Toolsmith server. Verify the tokens an identity provider issues
 * (`jwtVerifier`, `introspectionVerifier`), require scopes per operation, or make the server its own OAuth
 * authorization server in front of one upstream provider (`oauthProxy`), its state on the server's engine.
 */

export {
  type ClientLookup,
  type ClientRegistry,
  type OAuthClient,
  TOKEN_ENDPOINT_AUTH_METHODS,
  type TokenEndpointAuthMethod,
} from "./clients/client.js";
export type { HostResolver } from "./clients/fetch-document.js";
export { type ClientRegistryOptions, createClientRegistry } from "./clients/registry.js";
export { type OAuthProxy, type OAuthProxyOptions, oauthProxy } from "./proxy/oauth-proxy.js";
export { scopesOf, type TokenPrincipal } from "./tokens/principal.js";
export type { FetchLimits } from "./upstream/bounded-fetch.js";
export { type OAuthUpstreamOptions, oauthUpstream } from "./upstream/oauth-upstream.js";
export { type OidcUpstreamOptions, oidcUpstream } from "./upstream/oidc-upstream.js";
export { githubUpstream, googleUpstream, type PresetOptions } from "./upstream/presets.js";
export {
  type Upstream,
  type UpstreamAttempt,
  UpstreamError,
  type UpstreamGrant,
  type UpstreamTokens,
} from "./upstream/upstream.js";
export { createVault, MIN_SECRET_BYTES, type Vault } from "./vault/vault.js";
export { anyVerifier } from "./verify/any-verifier.js";
export type { IdpLimits } from "./verify/idp-link.js";
export { type IntrospectionVerifierOptions, introspectionVerifier } from "./verify/introspection-verifier.js";
export { type JwtVerifierOptions, jwtVerifier, type Verifier } from "./verify/jwt-verifier.js";
export { type StaticTokensOptions, staticTokens } from "./verify/static-tokens.js";
