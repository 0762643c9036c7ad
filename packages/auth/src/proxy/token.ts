import type { OAuthClient } from "../clients/client.js";
import { basicCredentials } from "../clients/client-authentication.js";
import type { Code, Grant } from "./callback.js";
import { keepGrant, revokeGrant } from "./grants.js";
import { randomId, s256, VERIFIER } from "./pkce.js";
import { json, oauthError } from "./replies.js";
import { issuerOf, type ProxySettings } from "./settings.js";
import { signAccessToken } from "./signing-key.js";

// `/token` (RFC 6749 section 3.2): the authorization code exchanged (once, within its minute, by the client it was
// issued to, with the redirect URI and the PKCE verifier it was bound to), and refresh tokens rotated. A refresh
// token used a second time means it was stolen: the whole grant is revoked (OAuth 2.1 section 4.3.1). A code used
// a second time revokes its grant too (RFC 6749 section 4.1.2).

/** A refresh token's record: its grant, and whether it was used (then kept, to tell a reuse). */
export interface Refresh {
  readonly grant: string;
  readonly clientId: string;
  readonly used: boolean;
}

const invalidGrant = (description: string) => oauthError(400, "invalid_grant", description);

/** The client named by the form and authenticated as it registered, or the 400/401 refusing it. */
export async function authenticateClient(
  settings: ProxySettings,
  request: Request,
  form: URLSearchParams,
): Promise<OAuthClient | Response> {
  let clientId = form.get("client_id");
  const basic = basicCredentials(request.headers.get("authorization"));
  const challenge = { "www-authenticate": 'Basic realm="token"' };
  // Not base64, no colon, or not form-encoded: a 401 naming Basic, as any failed Basic authentication (RFC 6749 5.2).
  if (basic === null) return oauthError(401, "invalid_client", "the Basic credentials are malformed", challenge);
  if (basic !== undefined) {
    if (clientId !== null && clientId !== basic.id)
      return oauthError(400, "invalid_request", "two different client ids");
    clientId = basic.id;
  }
  const unknown = () =>
    oauthError(401, "invalid_client", "client authentication failed", basic === undefined ? {} : challenge);
  if (!clientId) return basic === undefined ? oauthError(401, "invalid_client", "no client_id") : unknown();
  const client = await settings.clients.resolve(clientId).catch(() => undefined);
  if (client === undefined) return unknown();
  if (!(await settings.clients.authenticate(client, request, form).catch(() => false))) return unknown();
  return client;
}

/** Our tokens for a grant: an access token, and a fresh refresh token (the one used before is marked used). */
async function issue(
  settings: ProxySettings,
  request: Request,
  client: OAuthClient,
  grantId: string,
  grant: Grant,
  scope: string,
) {
  const ttlMs = settings.refreshTokenTtlSec * 1000;
  const refreshable = client.grantTypes.includes("refresh_token");
  // The grant lives as long as its newest refresh token (without one, as long as its access token).
  if (!(await keepGrant(settings, grantId, grant, refreshable ? ttlMs : settings.accessTokenTtlSec * 1000))) {
    return invalidGrant("the grant was revoked");
  }
  const refreshToken = refreshable ? randomId() : undefined;
  if (refreshToken !== undefined) {
    const record: Refresh = { grant: grantId, clientId: grant.clientId, used: false };
    await settings.vault.put("refresh", refreshToken, record, ttlMs);
  }
  const accessToken = await signAccessToken(await settings.key(), {
    issuer: issuerOf(settings, request),
    audience: grant.resource,
    subject: grant.subject,
    clientId: grant.clientId,
    scope,
    grant: grantId,
    ttlSec: settings.accessTokenTtlSec,
  });
  return json({
    access_token: accessToken,
    token_type: "Bearer",
    expires_in: settings.accessTokenTtlSec,
    ...(refreshToken === undefined ? {} : { refresh_token: refreshToken }),
    // RFC 6749 §5.1: the scopes granted, or nothing when none were (never an empty string).
    ...(scope === "" ? {} : { scope }),
  });
}

async function authorizationCode(
  settings: ProxySettings,
  request: Request,
  form: URLSearchParams,
  client: OAuthClient,
) {
  const code = form.get("code");
  const verifier = form.get("code_verifier");
  if (!code) return oauthError(400, "invalid_request", "code is required");
  if (!verifier) return oauthError(400, "invalid_request", "code_verifier is required (PKCE)");
  const bound = await settings.vault.take<Code>("code", code);
  if (bound === undefined) {
    // Used before: whatever was issued with it is revoked.
    const spent = await settings.vault.get<{ grant: string }>("spent", code);
    if (spent !== undefined) await revokeGrant(settings, spent.grant);
    return invalidGrant("the code is invalid, expired or already used");
  }
  const refuse = async (description: string, error = "invalid_grant") => {
    await revokeGrant(settings, bound.grant);
    return oauthError(400, error, description);
  };
  if (bound.clientId !== client.clientId) return refuse("the code was issued to another client");
  if (form.get("redirect_uri") !== bound.redirectUri)
    return refuse("redirect_uri differs from the authorization request's");
  if (!VERIFIER.test(verifier) || (await s256(verifier)) !== bound.codeChallenge) {
    return refuse("code_verifier does not match the code_challenge");
  }
  const resource = form.get("resource");
  if (resource !== null && !(URL.canParse(resource) && new URL(resource).href === bound.resource)) {
    return refuse("resource differs from the authorization request's", "invalid_target");
  }
  const grant = await settings.vault.get<Grant>("grant", bound.grant);
  if (grant === undefined) return invalidGrant("the sign-in behind this code expired");
  return issue(settings, request, client, bound.grant, grant, bound.scope);
}

/** The scopes a refresh asks for, if the grant has them all and the resource is its own; else the refusal. */
function narrowed(form: URLSearchParams, grant: Grant): string | Response {
  const asked = form.get("scope");
  const granted = grant.scope === "" ? [] : grant.scope.split(" ");
  const scopes = asked === null ? granted : asked.split(" ").filter((scope) => scope !== "");
  if (scopes.some((scope) => !granted.includes(scope))) {
    return oauthError(400, "invalid_scope", "a requested scope was not granted");
  }
  const resource = form.get("resource");
  if (resource !== null && !(URL.canParse(resource) && new URL(resource).href === grant.resource)) {
    return oauthError(400, "invalid_target", "resource is not this grant's");
  }
  return scopes.join(" ");
}

async function refreshToken(settings: ProxySettings, request: Request, form: URLSearchParams, client: OAuthClient) {
  const token = form.get("refresh_token");
  if (!token) return oauthError(400, "invalid_request", "refresh_token is required");
  const ttlMs = settings.refreshTokenTtlSec * 1000;
  // A request its own client may correct (a scope not granted, another resource) is refused before the token is
  // used up, so the corrected retry is not taken for a stolen token's reuse.
  const seen = await settings.vault.get<Refresh>("refresh", token);
  if (seen !== undefined && !seen.used && seen.clientId === client.clientId) {
    const current = await settings.vault.get<Grant>("grant", seen.grant);
    const checked = current === undefined ? undefined : narrowed(form, current);
    if (checked instanceof Response) return checked;
  }
  const record = await settings.vault.take<Refresh>("refresh", token);
  if (record === undefined) return invalidGrant("the refresh token is invalid or expired");
  // Kept as used (the same TTL), so a second use is told from a forged token.
  await settings.vault.put("refresh", token, { ...record, used: true } satisfies Refresh, ttlMs);
  if (record.used) {
    await revokeGrant(settings, record.grant);
    settings.warn(`OAuth proxy: a refresh token was used twice; its grant (client ${record.clientId}) is revoked`);
    return invalidGrant("the refresh token was already used; the grant is revoked");
  }
  if (record.clientId !== client.clientId) return invalidGrant("the refresh token was issued to another client");
  const grant = await settings.vault.get<Grant>("grant", record.grant);
  if (grant === undefined) return invalidGrant("the grant was revoked or expired");
  const scope = narrowed(form, grant);
  if (scope instanceof Response) return scope;
  return issue(settings, request, client, record.grant, grant, scope);
}

/** POST /token. */
export async function token(settings: ProxySettings, request: Request): Promise<Response> {
  if (!(request.headers.get("content-type") ?? "").toLowerCase().startsWith("application/x-www-form-urlencoded")) {
    return oauthError(400, "invalid_request", "the body must be application/x-www-form-urlencoded");
  }
  const form = new URLSearchParams(await request.text());
  for (const name of new Set(form.keys())) {
    if (form.getAll(name).length > 1) return oauthError(400, "invalid_request", `${name} is given more than once`);
  }
  const grantType = form.get("grant_type");
  if (grantType !== "authorization_code" && grantType !== "refresh_token") {
    return oauthError(
      400,
      grantType ? "unsupported_grant_type" : "invalid_request",
      "grant_type must be authorization_code or refresh_token",
    );
  }
  const client = await authenticateClient(settings, request, form);
  if (client instanceof Response) return client;
  if (!client.grantTypes.includes(grantType)) {
    return oauthError(400, "unauthorized_client", `the client is not registered for ${grantType}`);
  }
  return grantType === "authorization_code"
    ? authorizationCode(settings, request, form, client)
    : refreshToken(settings, request, form, client);
}
