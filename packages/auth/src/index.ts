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
export { createVault, MIN_SECRET_BYTES, type Vault } from "./vault/vault.js";
