import { isPlainObject } from "../wire/json-rpc.js";
import type { Implementation } from "../wire/types.js";
import { type HandshakeVersion, isHandshakeVersion, isStatelessVersion, MetaKey } from "./versions.js";

/** Which protocol era a request arrives in: handshake (`initialize`, then a session) or stateless (2026-07-28). */
export type Era = "handshake" | "stateless";

/**
 * The era a request chose where none is set yet, from what its door read of it: `initialize` opens the handshake era
 * (unless the `MCP-Protocol-Version` header names a stateless revision); that header, or `_meta` naming a version,
 * makes it a 2026-07-28 request; undefined for neither. Decided once, by the door (HTTP: headers and body; stdio: the
 * line alone), and handed to the connection (`ReceiveOptions.era`), which does not decide again.
 */
export function eraOf(method: unknown, meta: unknown, versionHeader: string | null = null): Era | undefined {
  if (method === "initialize" && (versionHeader === null || isHandshakeVersion(versionHeader))) return "handshake";
  if (versionHeader !== null && isStatelessVersion(versionHeader)) return "stateless";
  return isPlainObject(meta) && MetaKey.protocolVersion in meta ? "stateless" : undefined;
}

/** What `initialize` settled for a handshake-era connection. */
export interface HandshakeSession {
  readonly protocolVersion: HandshakeVersion;
  readonly clientInfo: Implementation;
  readonly clientCapabilities: Readonly<Record<string, unknown>>;
}

// The connection's era as a typestate: each state holds exactly what is known in it, so a
// handshake-era request cannot be served without a negotiated session to serve it with.

/** Nothing yet: `initialize` opens the handshake era, a request with a valid `_meta` is served statelessly. */
export interface Fresh {
  readonly kind: "fresh";
}

/** `initialize` answered; waiting for `notifications/initialized`. */
export interface Initializing {
  readonly kind: "initializing";
  readonly session: HandshakeSession;
}

/** Handshake era, in operation. */
export interface Operating {
  readonly kind: "operating";
  readonly session: HandshakeSession;
}

/** Stateless era (2026-07-28): every request brings its own version and capabilities. */
export interface Stateless {
  readonly kind: "stateless";
}

export type ConnectionState = Fresh | Initializing | Operating | Stateless;

/**
 * The lifecycle phase shown to observers of the wire, named as the MCP specification names it: "initialization"
 * while initializing (fresh, or `initialize` answered), "operation" after.
 */
export type Phase = "initialization" | "operation";

export const FRESH: Fresh = { kind: "fresh" };
const STATELESS: Stateless = { kind: "stateless" };

/**
 * Fresh or Stateless → Initializing. Stateless requests leave nothing behind, so `initialize` may still select the
 * handshake era for this connection (a client falling back after a discovery attempt); once initialized, never again.
 */
export function initialize(_state: Fresh | Stateless, session: HandshakeSession): Initializing {
  return { kind: "initializing", session };
}

/** Initializing → Operating, on `notifications/initialized`. */
export function initialized(state: Initializing): Operating {
  return { kind: "operating", session: state.session };
}

/** Fresh or Stateless → Stateless, once a request's `_meta` has been accepted. */
export function servedStateless(_state: Fresh | Stateless): Stateless {
  return STATELESS;
}

export function phaseOf(state: ConnectionState): Phase {
  return state.kind === "fresh" || state.kind === "initializing" ? "initialization" : "operation";
}
