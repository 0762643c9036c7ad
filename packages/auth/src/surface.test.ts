import { surfaceSuite } from "../../../scripts/surface.test-util.js";

// Every export is a promise: a name joins or leaves the package only by changing these lists on purpose.
const ENTRIES = {
  "index.ts": {
    values: [
      "MIN_SECRET_BYTES",
      "TOKEN_ENDPOINT_AUTH_METHODS",
      "UpstreamError",
      "anyVerifier",
      "createClientRegistry",
      "createVault",
      "githubUpstream",
      "googleUpstream",
      "introspectionVerifier",
      "jwtVerifier",
      "oauthProxy",
      "oauthUpstream",
      "oidcUpstream",
      "scopesOf",
      "staticTokens",
    ],
    types: [
      "ClientLookup",
      "ClientRegistry",
      "ClientRegistryOptions",
      "FetchLimits",
      "HostResolver",
      "IdpLimits",
      "IntrospectionVerifierOptions",
      "JwtVerifierOptions",
      "OAuthClient",
      "OAuthProxy",
      "OAuthProxyOptions",
      "OAuthUpstreamOptions",
      "OidcUpstreamOptions",
      "PresetOptions",
      "StaticTokensOptions",
      "TokenEndpointAuthMethod",
      "TokenPrincipal",
      "Upstream",
      "UpstreamAttempt",
      "UpstreamGrant",
      "UpstreamTokens",
      "Vault",
      "Verifier",
    ],
  },
};

surfaceSuite("@toolsmith/auth", import.meta.url, ENTRIES);
