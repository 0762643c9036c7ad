import { DefinitionError } from "@toolsmith/core";
import type { RemoteAddress } from "../checks/caller-limits.js";
import type { AuthOptions, ProtectionOptions } from "../checks/protection.js";
import { bodyLimit, type Reserved, type Routes, reservedPaths } from "../routes/routes.js";

// What a server's HTTP transport is given, checked once when it is defined: a bad option throws before anything
// starts or binds.

export interface HttpOptions extends ProtectionOptions, AuthOptions {
  /**
   * The MCP endpoint's path (default `/mcp`); other paths are 404, but for the protected-resource metadata. Holding
   * `?` or `#` (never matched): DefinitionError.
   */
  path?: string;
  /**
   * The health route (default `/healthz`; false: none): GET and HEAD answer 200 "ok" without touching MCP, before the
   * Host/Origin checks (a load balancer probes by address; the answer reveals nothing), and 503 once `close()` has
   * begun (a draining process leaves the rotation); other methods are 405.
   */
  healthPath?: string | false;
  /**
   * The user's own routes beside the MCP endpoint, keyed `"METHOD /path"` (`"GET /status"`, `"POST /hooks/github"`,
   * `"GET /static/*"` for a prefix): web-standard handlers, behind the Host/Origin checks unless `anyHost`, their
   * body read whole up to `maxBodyBytes`; never MCP, never the engine. A route shadowing `path`, the health route or
   * the protected-resource metadata is a DefinitionError.
   */
  routes?: Routes;
  /** Largest accepted request body in bytes (default 4 MiB): larger is 413. Not a whole number: DefinitionError. */
  maxBodyBytes?: number;
  /**
   * Serve the handshake era (default true). false for a server that cannot keep sessions where every request may
   * reach (a Cloudflare Worker's isolates): `initialize`, and any POST that is no 2026-07-28 request, is answered 400
   * with -32022 naming the stateless versions served; GET and DELETE are 405; `MCP-Session-Id` is ignored.
   */
  handshake?: boolean;
  /** Handshake-era sessions open at once, across every process of the server (default 1000): more is 503. */
  maxSessions?: number;
  /**
   * Handshake-era sessions one caller may hold, across every process (default a quarter of `maxSessions`): more is
   * 503.
   */
  maxSessionsPerCaller?: number;
  /** Long-lived SSE streams open at once (GET streams and 2026-07-28 listen streams; default 1000): more is 503. */
  maxStreams?: number;
  /** Long-lived SSE streams one caller may hold open (default a quarter of `maxStreams`): more is 503. */
  maxStreamsPerCaller?: number;
  /**
   * The caller's address, which keys the per-caller limits (the server's task limits too) of a caller `authenticate`
   * does not name (a subject keys them otherwise). node:http's peer address by default; the web-standard handler
   * knows none, so without this such callers share the global limits alone (and one caller's task limits). Behind a
   * proxy, read the address it forwards: `forwardedFor()`. It is given the request and the socket's address (`peer`,
   * undefined in the web-standard handler).
   */
  remoteAddress?: RemoteAddress;
  /** A handshake-era session unused this long ends (default 30 minutes); the server's engine ends it. */
  sessionIdleMs?: number;
  /**
   * SSE events kept per session for resumption with Last-Event-ID (default 512), when the server has no engine of
   * its own: the default memory engine's `eventsPerSession`. A configured engine keeps its own count (the Redis
   * engine's `eventsPerSession`).
   */
  eventBufferSize?: number;
}

/** The options checked (paths that clash, a body limit or another limit that is no whole number): what they reserve. */
export function checkOptions(options: HttpOptions): { readonly reserved: Reserved; readonly maxBodyBytes: number } {
  const reserved = reservedPaths(options);
  const maxBodyBytes = bodyLimit(options.maxBodyBytes);
  checkLimits(options);
  return { reserved, maxBodyBytes };
}

// The limits: NaN (`Number(process.env.UNSET)`) compares false with everything, so a limit given as NaN would be no
// limit at all.
const COUNTS = ["maxSessions", "maxSessionsPerCaller", "maxStreams", "maxStreamsPerCaller"] as const;

/** A DefinitionError for a session or stream limit that is no whole number, or an idle time that is not above 0. */
function checkLimits(options: { readonly [name in (typeof COUNTS)[number] | "sessionIdleMs"]?: number }): void {
  for (const name of COUNTS) {
    const value = options[name];
    if (value !== undefined && !(Number.isSafeInteger(value) && value >= 0)) {
      throw new DefinitionError(`${name} must be a whole number, not ${String(value)}`);
    }
  }
  const idle = options.sessionIdleMs;
  if (idle !== undefined && !(Number.isSafeInteger(idle) && idle > 0)) {
    throw new DefinitionError(`sessionIdleMs must be a whole number of milliseconds above 0, not ${String(idle)}`);
  }
}
