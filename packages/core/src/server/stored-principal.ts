import type { AuthInfo } from "../context/context.js";
import { type ContextPort, RequestContextImpl } from "../context/request-context.js";
import type { StoredPrincipal } from "../engine/engine.js";
import { featuresOf } from "../protocol/revision.js";
import { LATEST_HANDSHAKE_VERSION } from "../protocol/versions.js";

// A stored principal as guards see a caller: `ctx.auth` with its subject, scopes and client id (never a token).

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
