import type { LogLevel } from "../protocol/log-levels.js";
import type { ProtocolVersion } from "../protocol/versions.js";
import type { MaybePromise } from "../wire/maybe.js";
import type { Implementation } from "../wire/types.js";

/** A principal as the engine keeps it: who the caller is and what it may do, never a credential (no token). */
export interface StoredPrincipal {
  readonly subject: string;
  readonly scopes: readonly string[];
  readonly clientId?: string;
}

/**
 * One handshake-era session: what `initialize` negotiated and what the client set since; bounded in bytes (the
 * client's info and capabilities as `SESSION_BOUNDS` keeps them). Its resource subscriptions are kept beside it,
 * never in it: loading a session costs the same however much it subscribed to.
 */
export interface SessionRecord {
  readonly id: string;
  /** The principal it is bound to; undefined for a session opened without authentication (its id alone). */
  readonly principal: StoredPrincipal | undefined;
  /** What keys the per-caller session limit (a subject, else an address), when known. */
  readonly caller: string | undefined;
  readonly version: ProtocolVersion;
  readonly clientInfo: Implementation;
  readonly clientCapabilities: Readonly<Record<string, unknown>>;
  /** True once `notifications/initialized` came. */
  readonly initialized: boolean;
  /** `logging/setLevel`'s level. */
  readonly logLevel: LogLevel | undefined;
}

/** A session a list change or resource update is told to: live, initialized, and the principal it is bound to. */
export interface InitializedSession {
  readonly id: string;
  readonly principal: StoredPrincipal | undefined;
}

/** What a session's client changed after `initialize`. */
export type SessionChange =
  | { readonly kind: "initialized" }
  | { readonly kind: "logLevel"; readonly level: LogLevel }
  | { readonly kind: "subscribe"; readonly uri: string }
  | { readonly kind: "unsubscribe"; readonly uri: string };

/** Bounds on sessions: in all, per caller, and how long one may go unused. */
export interface SessionLimits {
  readonly max: number;
  readonly perCaller: number;
  readonly idleMs: number;
}

/**
 * The handshake-era sessions of a server (the HTTP transport's `MCP-Session-Id`): their records and resource
 * subscriptions, readable by every process of the server. What it acknowledged survives the process that wrote it
 * (a shared engine's records outlive any one process; the memory engine's, its own). Bounded: sessions in all and per
 * caller (`SessionLimits`, counted over every process, live sessions only), each session unused for its `idleMs`
 * ended (a load restarts its idle time), and each record and its subscriptions within `SESSION_BOUNDS`. A session
 * that ended (deleted or expired) never comes back: later loads, changes and deletes find nothing, until a session
 * is made anew under its id (with nothing of the old one). An engine that also plays `SessionChannel` signals `ended`
 * on the session's channel when one ends, however it ended; one that plays `EventLog` drops the session's events.
 */
export interface SessionStore {
  /**
   * Keep a new session within `limits`: "full" or "full-for-caller" when it may not be opened. The client's info and
   * capabilities are kept within `SESSION_BOUNDS`, whatever the record given carries, and only what `SessionRecord`
   * names (a principal without its token). A live session of that id already: a plain `Error`.
   */
  createSession(record: SessionRecord, limits: SessionLimits): MaybePromise<"created" | "full" | "full-for-caller">;
  /** The session, its idle expiry restarted; undefined when it ended, expired or never was. */
  loadSession(id: string): MaybePromise<SessionRecord | undefined>;
  /**
   * Apply what its client changed; acknowledged when it returns (a later load anywhere sees it); nothing for a
   * session that is not live. A subscription past `SESSION_BOUNDS` is refused with an `McpError` (its URI too long:
   * -32602; too many, or too many bytes of URIs: -32000) and changes nothing.
   */
  changeSession(id: string, change: SessionChange): MaybePromise<void>;
  /** End it (its events and subscriptions go too); `ended` travels on its channel. False when there was none. */
  deleteSession(id: string): MaybePromise<boolean>;
  /**
   * The live sessions initialized (`notifications/initialized` kept), each with its principal: those subscribed to
   * `uri` when given (exactly that URI: no pattern), else all; who a list change or resource update is told to. One
   * read (one round trip for a shared engine) that restarts no session's idle time, so sessions still expire however
   * often changes come.
   */
  initializedSessions(uri?: string): MaybePromise<readonly InitializedSession[]>;
  /**
   * The live sessions subscribed to `uri` (exactly that URI: no pattern).
   * @deprecated Toolsmith no longer calls it (`initializedSessions(uri)` reads the audience of an update); it goes in
   * the next minor release.
   */
  subscribers(uri: string): MaybePromise<readonly string[]>;
  /**
   * Every live session's id.
   * @deprecated Toolsmith no longer calls it (`initializedSessions()` reads the audience of a list change); it goes in
   * the next minor release.
   */
  sessionIds(): MaybePromise<readonly string[]>;
}
