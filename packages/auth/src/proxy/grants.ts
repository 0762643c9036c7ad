import type { Grant } from "./callback.js";
import type { ProxySettings } from "./settings.js";

// A grant is revoked by a mark kept as long as a grant may live, then by deleting it. A request that read the grant
// before the revocation writes it back (to extend or update it) and then looks for the mark: either it sees the
// mark and deletes what it wrote, or its write came before the revocation's delete. So a revocation racing a
// refresh or a code exchange on the same grant is never undone by it.

/** End a grant: its refresh tokens and `upstreamToken` stop working; no later write brings it back. */
export async function revokeGrant(settings: ProxySettings, grantId: string): Promise<void> {
  await settings.vault.put("revoked", grantId, { revoked: true }, settings.refreshTokenTtlSec * 1000);
  await settings.vault.delete("grant", grantId);
}

/** Write `grant` back for `ttlMs`: false (and nothing kept) when it was revoked meanwhile. */
export async function keepGrant(settings: ProxySettings, grantId: string, grant: Grant, ttlMs: number) {
  await settings.vault.put("grant", grantId, grant, ttlMs);
  if ((await settings.vault.get("revoked", grantId)) === undefined) return true;
  await settings.vault.delete("grant", grantId);
  return false;
}
