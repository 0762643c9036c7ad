import type { AuthInfo } from "../context/context.js";
import type { ContextPort } from "../context/context-init.js";
import type { LogEntry } from "../context/logger.js";
import { RequestContextImpl } from "../context/request-context.js";
import type { StoredPrincipal } from "../engine/engine.js";
import { featuresOf } from "../protocol/revision.js";
import { LATEST_HANDSHAKE_VERSION } from "../protocol/versions.js";
import { allows } from "../registry/guards.js";
import type { Audience } from "../registry/router.js";
import type { Server } from "./servable.js";
import { implOf } from "./server-access.js";

// A stored principal as guards see a caller: `ctx.auth` with its subject, scopes and client id (never a token); what
// such a caller may hear of and read, for a transport telling the sessions it keeps in the engine.

// Nothing is served through it: a guard that tried to ask or notify is told so.
const NO_PORT: ContextPort = {
  logLevel: undefined,
  notify() {},
  request: () => Promise.reject(new Error("no request is being served: a guard cannot ask the client")),
};

/** A context for deciding what a caller known only by its stored principal may see (no request behind it). */
export function principalContext(principal: StoredPrincipal | undefined): RequestContextImpl {
  let auth: AuthInfo | undefined;
  if (principal !== undefined) {
    auth = { subject: principal.subject, scopes: principal.scopes };
    if (principal.clientId !== undefined) auth = { ...auth, clientId: principal.clientId };
  }
  return new RequestContextImpl({
    requestId: 0,
    key: "n0",
    revision: featuresOf(LATEST_HANDSHAKE_VERSION),
    clientInfo: undefined,
    clientCapabilities: {},
    meta: undefined,
    auth,
    extra: undefined,
    port: NO_PORT,
  });
}

/** Whether a caller known by its stored principal may hear of a change for `audience` (as a connection's would). */
export function mayHear(server: Server, audience: Audience, principal: StoredPrincipal | undefined): boolean {
  if (audience === undefined) return true;
  const impl = implOf(server);
  const ctx = principalContext(principal);
  const report = (entry: LogEntry) => impl.log(entry);
  return audience.some((guard) => allows(guard, ctx, report));
}

/** Whether a caller known by its stored principal may read `uri` (and so hear of its updates). */
export function mayRead(server: Server, uri: string, principal: StoredPrincipal | undefined): boolean {
  return implOf(server).router.canRead(uri, principalContext(principal));
}
