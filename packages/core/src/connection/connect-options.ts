import type { AuthInfo } from "../context/context.js";
import type { SessionChange, SessionRecord } from "../engine/engine.js";
import type { Era } from "../protocol/era.js";
import type { RequestId } from "../wire/json-rpc.js";
import type { MaybePromise } from "../wire/maybe.js";
import type { Tool } from "../wire/types.js";
import type { Delivery } from "./outlet.js";

// What a transport tells a connection: once, when it connects, and with each message.

/** How a transport connects: where the connection's lines go, and what the transport knows of the peer. */
export interface ConnectOptions {
  /** Every line the connection says goes here, in order: replies, notifications, requests to the client. */
  send(line: string, delivery: Delivery): void;
  /** The caller, when the transport authenticated one for the whole connection (a TypeError without a subject). */
  auth?: AuthInfo;
  /** Copied into every request's `ctx.extra`. */
  extra?: Record<string, unknown>;
  /**
   * A request without a principal (`auth`) holds every OAuth scope (`scopes` of definitions and servers): for a
   * transport whose peer is the local user who started the server (stdio), and the in-memory test client. Without it
   * such a request holds none (HTTP without `authenticate`). A principal holds exactly its own scopes, either way.
   */
  holdsEveryScope?: boolean;
  /**
   * Told of each request answered with the generic -32603 "Internal error", with the error behind it that the wire
   * never carries, and of a guard that threw while serving a request (its item answered as one that does not exist).
   * The in-memory test client makes it the rejection's `cause`.
   */
  onInternalError?(error: unknown, requestId: RequestId): void;
  /**
   * Start as this handshake-era session (kept by the engine, perhaps made on another process): its version, client
   * info and capabilities, log level, initialized or not; no `initialize` is needed, nor taken. Its subscriptions stay
   * with the engine (one that hears changes keeps only those made through it).
   */
  session?: SessionRecord;
  /**
   * The id of the handshake-era session this connection serves, one the engine keeps (its `ctx.store.session` is
   * keyed by it, written only while the engine holds the session live, and deleted by the engine as it ends it).
   * Without it (and without `session`), an initialized connection is a session of its own, whose store, when it was
   * written, is cleared when the connection closes.
   */
  sessionId?: string;
  /**
   * Told of what the client changed in its session (`notifications/initialized`, `logging/setLevel`,
   * `resources/subscribe`/`unsubscribe`) before the connection applies it; the causing request is answered only once
   * this settles, and fails if it rejects (an `EngineUnavailable`: -32000 "Service unavailable").
   */
  onSessionChange?(change: SessionChange): MaybePromise<void>;
  /**
   * The server's own requests to the client get string ids `"<prefix>-<n>"` (unique across processes when the
   * prefix is); without it, numbers from 0.
   */
  outboundIds?: string;
  /**
   * False: the server never tells this connection of list changes or resource updates (a transport that fans them
   * out itself). Default true.
   */
  hearsChanges?: boolean;
  /**
   * False: the transport serves no handshake era where this connection is (HTTP's `handshake: false`, a Worker), so
   * `server/discover` names the stateless versions alone. Default true.
   */
  handshake?: boolean;
}

/** What a transport knows about one incoming message. */
export interface ReceiveOptions {
  /** The caller of this message (HTTP authenticates each request); without a subject, the request gets -32603. */
  auth?: AuthInfo;
  /**
   * The peer's network address, asked only when a per-caller limit needs it (a task's creation): a caller without a
   * subject is counted by it. Without it, every such caller of the server is counted as one.
   */
  address?: () => string | undefined;
  extra?: Record<string, unknown>;
  /** Anything the transport wants back on every line this message causes (`delivery.tag`): a stream, a phase. */
  tag?: unknown;
  /** The line already parsed (`JSON.parse(line)`), when the transport had to look inside: it is not parsed again. */
  parsed?: unknown;
  /**
   * The era the transport's door chose for this request with `eraOf` (HTTP: from its headers and body), on a
   * connection in none yet: it is served in it, not chosen again. Without it the request's own line decides (stdio).
   */
  era?: Era;
  /**
   * A check of a `tools/call` against the tool it reaches, made only once that tool is known to be this caller's
   * (a refused or unknown one answers as unknown first): throw an `McpError` to refuse. HTTP checks its
   * `Mcp-Param-*` headers here.
   */
  checkTool?: (tool: Tool) => void;
}
