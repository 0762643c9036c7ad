import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK } from "jose";
import type { MemoryStorage } from "./memory-adapter.js";

/** Client metadata as RFC 7591 names it (and oidc-provider takes it): a pre-registered client. */
export interface ClientMetadata {
  client_id: string;
  client_secret?: string;
  redirect_uris?: string[];
  grant_types?: string[];
  response_types?: string[];
  token_endpoint_auth_method?: "none" | "client_secret_basic" | "client_secret_post";
  scope?: string;
  application_type?: "web" | "native";
  client_name?: string;
  [other: string]: unknown;
}

/** The algorithms the provider can sign access tokens with (it holds one key of each). */
export type SigningAlgorithm = "RS256" | "ES256";

/** What the configuration needs beyond the options: the storage and keys that outlive one provider. */
export interface Settings {
  storage: MemoryStorage;
  keys: JWK[];
  clients: ClientMetadata[];
  scopes: readonly string[];
  resources: readonly string[] | undefined;
  accessTokenTtlSec: number;
  refreshTokenTtlSec: number;
  accessTokenAlgorithm: SigningAlgorithm;
  clientIdMetadataDocuments: boolean | { fetch: typeof fetch };
  cookieKeys: string[];
  keepClientScope: boolean;
}

/** A fresh private signing key of `alg`, with its RFC 7638 thumbprint as `kid`. */
export async function signingKey(alg: SigningAlgorithm): Promise<JWK> {
  const { privateKey } = await generateKeyPair(alg, { extractable: true });
  const jwk = await exportJWK(privateKey);
  return { ...jwk, alg, use: "sig", kid: await calculateJwkThumbprint(jwk) };
}

/** Where an HTML error page shows what went wrong; escaped, as the values come from the request. */
function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * oidc-provider's configuration for a development IdP: its own login and consent screens (any login is accepted),
 * PKCE required, refresh tokens, resource indicators issuing JWT access tokens, registration, introspection,
 * revocation. Every default that would print a notice when first used (account lookup, lifetimes, the error page,
 * CORS and the introspection/revocation policies) is given here, so nothing reaches the console.
 */
export function configuration(settings: Settings): Record<string, unknown> {
  const { storage } = settings;
  const metadataDocuments = settings.clientIdMetadataDocuments;
  return {
    adapter: storage.adapter(settings.keepClientScope),
    clients: settings.clients,
    jwks: { keys: settings.keys },
    cookies: { keys: settings.cookieKeys },
    // The resource scopes are listed too: a client registering for them names them in its `scope` (RFC 7591).
    scopes: ["openid", "offline_access", ...settings.scopes],
    claims: { openid: ["sub"] },
    pkce: { required: () => true },
    clientBasedCORS: () => true,
    // Every login is an account whose subject is the login typed on the sign-in page.
    findAccount: async (_ctx: unknown, sub: string) => ({ accountId: sub, claims: async () => ({ sub }) }),
    // The client asked for offline_access but oidc-provider drops it without prompt=consent: any client allowed the
    // refresh_token grant gets one, as MCP clients expect.
    issueRefreshToken: async (_ctx: unknown, client: { grantTypeAllowed(type: string): boolean }) =>
      client.grantTypeAllowed("refresh_token"),
    renderError: async (ctx: { type: string; body: string }, out: Record<string, string>) => {
      ctx.type = "html";
      const rows = Object.entries(out).map(([key, value]) => `<p><b>${escapeHtml(key)}</b>: ${escapeHtml(value)}</p>`);
      ctx.body = `<!DOCTYPE html><html><head><title>Sign-in error</title></head><body><h1>Sign-in error</h1>${rows.join("")}</body></html>`;
    },
    ttl: {
      AccessToken: settings.accessTokenTtlSec,
      AuthorizationCode: 60,
      BackchannelAuthenticationRequest: 600,
      ClientCredentials: settings.accessTokenTtlSec,
      DeviceCode: 600,
      Grant: settings.refreshTokenTtlSec,
      IdToken: 3600,
      Interaction: 3600,
      PreAuthorizedCode: 600,
      RefreshToken: settings.refreshTokenTtlSec,
      Session: settings.refreshTokenTtlSec,
    },
    features: {
      devInteractions: { enabled: true },
      registration: { enabled: true },
      clientCredentials: { enabled: true },
      introspection: { enabled: true, allowedPolicy: async () => true },
      revocation: { enabled: true, allowedPolicy: async () => true },
      rpInitiatedLogout: { enabled: false },
      resourceIndicators: {
        enabled: true,
        defaultResource: async (_ctx: unknown, _client: unknown, oneOf?: string) => oneOf,
        useGrantedResource: async () => true,
        getResourceServerInfo: async (_ctx: unknown, resource: string) => {
          if (settings.resources !== undefined && !settings.resources.includes(resource)) {
            const { errors } = await import("oidc-provider");
            throw new errors.InvalidTarget();
          }
          return {
            scope: settings.scopes.join(" "),
            audience: resource,
            accessTokenTTL: settings.accessTokenTtlSec,
            accessTokenFormat: "jwt",
            jwt: { sign: { alg: settings.accessTokenAlgorithm } },
          };
        },
      },
      clientIdMetadataDocument:
        metadataDocuments === false
          ? { enabled: false }
          : { enabled: true, ack: "draft-02", cacheDuration: { min: 0, max: 60 } },
    },
    ...(typeof metadataDocuments === "object" ? { fetch: metadataDocuments.fetch } : {}),
  };
}
