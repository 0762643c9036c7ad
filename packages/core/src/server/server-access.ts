import type { Engine } from "../engine/engine.js";
import type { Announcement } from "./engine-link.js";
import type { Server } from "./servable.js";
import { ServerImpl } from "./server.js";

// What transports and other packages ask of a server that `createServer` made, beyond the `Server` it is to handlers.

/** The server behind `server`, which createServer made (a TypeError otherwise). */
export function implOf(server: Server): ServerImpl {
  if (!(server instanceof ServerImpl)) throw new TypeError("not a server made by createServer");
  return server;
}

/**
 * Hear each list change (kind, names, audience) and resource update made on this process, as its connections are
 * told of it (after batching): what a transport fans out to sessions it keeps in the engine. Returns what stops it.
 */
export function onAnnounce(server: Server, listener: (announcement: Announcement) => void): () => void {
  return implOf(server).onAnnounce(listener);
}

/**
 * The server's engine; when none was configured (nor made yet), `make`'s, in place of the default memory engine: a
 * transport's own default, such as its event buffer's size.
 */
export function defaultEngine(server: Server, make: () => Engine): Engine {
  return implOf(server).engineOr(make);
}

/**
 * The OAuth scopes every request to `server` needs (`createServer({ scopes })`): what an HTTP 401 challenge names.
 * @example
 * ```ts source="examples/server.ts#serverScopes"
 * const challenge = `Bearer scope="${serverScopes(server).join(" ")}"`;
 * ```
 */
export function serverScopes(server: Server): readonly string[] {
  return implOf(server).router.required ?? [];
}

/**
 * Every OAuth scope `server` uses, sorted, as it is now: its own, those of each enabled tool, resource, template and
 * prompt no guard hides, its modules' included: what RFC 9728 metadata lists as `scopes_supported` by default.
 * @example
 * ```ts source="examples/server.ts#declaredScopes"
 * const metadata = { scopes_supported: declaredScopes(server) };
 * ```
 */
export function declaredScopes(server: Server): readonly string[] {
  return implOf(server).router.declaredScopes();
}
