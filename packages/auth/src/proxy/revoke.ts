import { jwtVerify } from "jose";
import { revokeGrant } from "./grants.js";
import { json, oauthError } from "./replies.js";
import type { ProxySettings } from "./settings.js";
import { authenticateClient, type Refresh } from "./token.js";

// `/revoke` (RFC 7009): a refresh token or an access token of this client ends its whole grant (the upstream's
// tokens with it). The answer is 200 whether or not the token was known: a caller learns nothing from it.

export async function revoke(settings: ProxySettings, request: Request): Promise<Response> {
  if (!(request.headers.get("content-type") ?? "").toLowerCase().startsWith("application/x-www-form-urlencoded")) {
    return oauthError(400, "invalid_request", "the body must be application/x-www-form-urlencoded");
  }
  const form = new URLSearchParams(await request.text());
  const client = await authenticateClient(settings, request, form);
  if (client instanceof Response) return client;
  const token = form.get("token");
  if (!token) return oauthError(400, "invalid_request", "token is required");
  const refresh = await settings.vault.get<Refresh>("refresh", token);
  if (refresh !== undefined) {
    if (refresh.clientId === client.clientId) await revokeGrant(settings, refresh.grant);
    return json({});
  }
  // An access token: ours only if it verifies with our key; its grant is this client's only if it says so.
  const key = await settings.key();
  try {
    const { payload } = await jwtVerify(token, key.publicKey, { algorithms: ["ES256"] });
    if (payload.client_id === client.clientId && typeof payload.grant === "string") {
      await revokeGrant(settings, payload.grant);
    }
  } catch {
    // Not ours, or expired: nothing to revoke.
  }
  return json({});
}
