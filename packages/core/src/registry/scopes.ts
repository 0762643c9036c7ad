import type { RequestContext } from "../context/context.js";
import type { LogEntry } from "../context/logger.js";
import { RequestContextImpl } from "../context/request-context.js";
import { grantOf, insufficientScope, NO_SCOPE, ScopeHierarchy, unionOf } from "../context/scopes.js";

// The scope check of one operation (tools/call, resources/read, prompts/get, completion/complete): made once the
// item is known to be the caller's (a guard hides before this), before anything of the item's own runs.

/** A server's own scopes: those every request needs, and which scopes imply which. */
export interface ServerScopes {
  readonly required: readonly string[] | undefined;
  readonly hierarchy: ScopeHierarchy;
}

export const NO_SERVER_SCOPES: ServerScopes = { required: undefined, hierarchy: new ScopeHierarchy() };

const EMPTY_HIERARCHY = new ScopeHierarchy();

// Items whose refusal for a caller without a principal was told, once each.
const WARNED = new WeakSet<object>();

/**
 * Refuse (`InsufficientScope`, naming every scope it needs) a caller that lacks one of `needs`: the scopes of the
 * servers it is served through (`above`, then `server`'s own) and the item's own. `item` names it in the warning
 * told once when a caller without a principal is refused (a transport that authenticates nobody).
 */
export function demand(
  above: readonly string[] | undefined,
  server: readonly string[] | undefined,
  own: readonly string[] | undefined,
  ctx: RequestContext,
  item: { readonly key: object; readonly what: string },
  report: (entry: LogEntry) => void,
): void {
  const needs = above === undefined && server === undefined ? own : unionOf(above, server, own);
  if (needs === undefined) return;
  const grant = ctx instanceof RequestContextImpl ? ctx.grant : grantOf(ctx.auth, false, EMPTY_HIERARCHY);
  for (const scope of needs) {
    if (grant.holds(scope)) continue;
    if (grant === NO_SCOPE && !WARNED.has(item.key)) {
      WARNED.add(item.key);
      report({
        level: "warning",
        message: `${item.what} needs the scopes ${needs.join(" ")}, and its caller has no principal, so holds none: it is refused until the transport authenticates callers (transport-http: its authenticate option); said once`,
        method: "(scopes)",
      });
    }
    throw insufficientScope(needs);
  }
}

/** The scopes served through a router: those above it and its server's own. */
export function through(above: readonly string[] | undefined, server: readonly string[] | undefined) {
  return above === undefined ? server : unionOf(above, server);
}
