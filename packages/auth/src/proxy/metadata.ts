import { OFFLINE_ACCESS } from "./authorization-request.js";
import type { ProxySettings } from "./settings.js";

// RFC 8414 authorization server metadata, for the issuer a request is served as.

export function authorizationServerMetadata(settings: ProxySettings, issuer: string): Record<string, unknown> {
  const { clients } = settings;
  const authMethods = ["none", "client_secret_basic", "client_secret_post"];
  return {
    issuer,
    authorization_endpoint: `${issuer}/authorize`,
    token_endpoint: `${issuer}/token`,
    revocation_endpoint: `${issuer}/revoke`,
    ...(clients.dynamicRegistration ? { registration_endpoint: `${issuer}/register` } : {}),
    jwks_uri: `${issuer}/.well-known/jwks.json`,
    // offline_access listed (the refresh tokens it issues), so a client knows to ask for it; never in the resource's.
    ...(settings.scopes === undefined ? {} : { scopes_supported: [...settings.scopes, OFFLINE_ACCESS] }),
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    code_challenge_methods_supported: ["S256"],
    token_endpoint_auth_methods_supported: authMethods,
    revocation_endpoint_auth_methods_supported: authMethods,
    authorization_response_iss_parameter_supported: true,
    client_id_metadata_document_supported: clients.metadataDocuments,
  };
}
