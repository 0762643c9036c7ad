import type { AuthInfo } from "@toolsmith/core";
import { UpstreamError } from "../upstream/upstream.js";
import type { Grant } from "./callback.js";
import { keepGrant } from "./grants.js";
import type { ProxySettings } from "./settings.js";

// A handler's way to the upstream's access token for its caller: found by the grant the caller's token names,
// refreshed when it has expired (once per grant at a time in this process), never sent to the MCP client.

/** Refresh this long before the upstream's token expires, so it does not expire on its way. */
const EARLY_MS = 30_000;

export function upstreamTokens(
  settings: ProxySettings,
): (ctx: { readonly auth?: AuthInfo | undefined }) => Promise<string> {
  const refreshing = new Map<string, Promise<string>>();
  return async (ctx) => {
    const claims = ctx.auth?.claims as Record<string, unknown> | undefined;
    const grantId = claims?.grant;
    if (typeof grantId !== "string") {
      throw new UpstreamError("refused", "the caller was not signed in through this server's OAuth proxy");
    }
    const grant = await settings.vault.get<Grant>("grant", grantId);
    if (grant === undefined) throw new UpstreamError("refused", "the sign-in was revoked or expired: sign in again");
    const { expiresAt } = grant.upstream;
    if (expiresAt === undefined || expiresAt - EARLY_MS > Date.now()) return grant.upstream.accessToken;
    const running = refreshing.get(grantId);
    if (running) return running;
    const refreshed = (async () => {
      const tokens = await settings.upstream.refresh(grant.upstream);
      const ttlMs = settings.refreshTokenTtlSec * 1000;
      if (!(await keepGrant(settings, grantId, { ...grant, upstream: tokens }, ttlMs))) {
        throw new UpstreamError("refused", "the sign-in was revoked: sign in again");
      }
      return tokens.accessToken;
    })().finally(() => refreshing.delete(grantId));
    refreshing.set(grantId, refreshed);
    return refreshed;
  };
}
