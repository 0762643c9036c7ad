import type { OAuthClient } from "../clients/client.js";
import { errorPage, redirect, withParams } from "./replies.js";
import { issuerOf, type ProxySettings, resourceOf } from "./settings.js";

// Reading an authorization request (RFC 6749 section 4.1.1 with PKCE, RFC 8707 and RFC 9207) the order the RFC
// says: until the client and its redirect URI are known, an error is a page (a redirect to an unverified URI is an
// open redirect); after, it goes back to the client with `error`, `state` and `iss`.

/** An authorization request that passed every check: what the consent, the callback and the code are bound to. */
export interface AuthorizationRequest {
  readonly clientId: string;
  readonly redirectUri: string;
  readonly state: string | undefined;
  readonly codeChallenge: string;
  readonly scope: string;
  readonly resource: string;
  readonly issuer: string;
}

const LOOPBACK_IP = new Set(["127.0.0.1", "[::1]"]);
const LOOPBACK = new Set([...LOOPBACK_IP, "localhost"]);
// An S256 challenge: base64url of 32 bytes.
const CHALLENGE = /^[A-Za-z0-9\-_]{43}$/;

/** Whether a redirect URI may be used at all: https, or http on a loopback host (RFC 8252); any http in development. */
export function redirectAllowed(uri: string, development: boolean): boolean {
  if (!URL.canParse(uri)) return false;
  const url = new URL(uri);
  if (url.hash !== "" || uri.includes("#") || url.username !== "" || url.password !== "") return false;
  if (url.protocol === "https:") return true;
  return url.protocol === "http:" && (development || LOOPBACK.has(url.hostname));
}

/**
 * Whether `given` is one of the client's redirect URIs: the same string, except that a loopback IP's port may
 * differ (RFC 8252 section 7.3: a native app listens on whatever port is free).
 */
export function redirectMatches(client: OAuthClient, given: string): boolean {
  if (client.redirectUris.includes(given)) return true;
  if (!URL.canParse(given)) return false;
  const url = new URL(given);
  if (url.protocol !== "http:" || !LOOPBACK_IP.has(url.hostname)) return false;
  const portless = (uri: string) => uri.replace(/^(http:\/\/(?:127\.0\.0\.1|\[::1\]))(?::\d+)?(?=[/?]|$)/, "$1");
  const bare = portless(given);
  return client.redirectUris.some((registered) => registered.startsWith("http://") && portless(registered) === bare);
}

/** The same URL (RFC 8707 resources compared after parsing: `HTTPS://Host:443/mcp` is `https://host/mcp`). */
function sameResource(a: string, b: string): boolean {
  return URL.canParse(a) && URL.canParse(b) && new URL(a).href === new URL(b).href;
}

/** The scope a client asks for a refresh token with (OpenID Connect Core §11). */
export const OFFLINE_ACCESS = "offline_access";

/** The scopes asked for, checked against those the server offers: undefined when one is not offered. */
function scopesOf(settings: ProxySettings, asked: string | null): string | undefined {
  // offline_access asks for a refresh token, which a client registered for the refresh_token grant gets anyway:
  // accepted, and never a scope of the access token (it is no permission on this server).
  const scopes = [...new Set((asked ?? "").split(" ").filter((scope) => scope !== "" && scope !== OFFLINE_ACCESS))];
  if (settings.scopes !== undefined && scopes.some((scope) => !settings.scopes?.includes(scope))) return undefined;
  return scopes.join(" ");
}

/** The checked request with its client, or the answer refusing it (a page, or a redirect carrying the error). */
export async function readAuthorization(
  settings: ProxySettings,
  request: Request,
  params: URLSearchParams,
): Promise<{ request: AuthorizationRequest; client: OAuthClient } | Response> {
  const one = (name: string) => (params.getAll(name).length > 1 ? undefined : params.get(name));
  const clientId = one("client_id");
  if (!clientId) return errorPage(400, "The request names no client (client_id), or names it twice.");
  const { client, reason } = await settings.clients.lookup(clientId);
  if (client === undefined) return errorPage(400, `The application that sent you here is not accepted: ${reason}`);
  const redirectUri = one("redirect_uri");
  if (!redirectUri || !redirectMatches(client, redirectUri) || !redirectAllowed(redirectUri, settings.development)) {
    return errorPage(400, "The address the client asked to send you back to is not one it registered.");
  }
  // From here the redirect URI is the client's own: errors go back to it.
  const issuer = issuerOf(settings, request);
  const state = one("state") ?? undefined;
  const fail = (error: string, description: string) =>
    redirect(withParams(redirectUri, { error, error_description: description, state, iss: issuer }));
  for (const name of ["response_type", "code_challenge", "code_challenge_method", "scope", "resource", "state"]) {
    if (params.getAll(name).length > 1) return fail("invalid_request", `${name} is given more than once`);
  }
  if (one("response_type") !== "code") return fail("unsupported_response_type", "only response_type=code is supported");
  if (!client.grantTypes.includes("authorization_code")) {
    return fail("unauthorized_client", "the client is not registered for the authorization_code grant");
  }
  const codeChallenge = one("code_challenge");
  if (!codeChallenge) return fail("invalid_request", "code_challenge is required (PKCE)");
  if (one("code_challenge_method") !== "S256") {
    return fail("invalid_request", "code_challenge_method must be S256 (plain is not accepted)");
  }
  if (!CHALLENGE.test(codeChallenge)) return fail("invalid_request", "code_challenge is not an S256 challenge");
  const ours = resourceOf(settings, request);
  const resource = one("resource") ?? ours;
  if (!sameResource(resource, ours)) return fail("invalid_target", "resource is not this server's MCP endpoint");
  const scope = scopesOf(settings, one("scope") ?? null);
  if (scope === undefined) return fail("invalid_scope", "a requested scope is not offered by this server");
  return {
    client,
    request: { clientId, redirectUri, state, codeChallenge, scope, resource: ours, issuer },
  };
}
