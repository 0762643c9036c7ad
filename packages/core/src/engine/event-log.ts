import type { MaybePromise } from "../wire/maybe.js";

/** One server-sent event of a session, as kept for resumption. */
export interface StoredEvent {
  /** Unique within its session across every process; what `Last-Event-ID` names. */
  readonly id: string;
  /** The stream it belongs to: `get` (the session's GET stream) or a POST's stream key. */
  readonly stream: string;
  /** The JSON-RPC line; empty for a priming event. */
  readonly data: string;
}

/**
 * The SSE events of each handshake-era session, kept so that a client resuming with `Last-Event-ID` gets what it
 * missed, on any process. Played with `SessionStore`: events belong to a live session (appending to one that ended
 * keeps nothing) and go when it ends. Bounded: the newest events of a session (the memory and Redis engines keep
 * `eventsPerSession`, default 512), the oldest dropped first. Ordered: ids are unique within the session across
 * every process, and a replay gives a stream's events in the order they were appended. Each append is also signalled
 * on the session's channel (`SessionChannel`) as an `event`, so whichever process holds that stream live writes it.
 * A fenced append (`running`) is the one write of `RequestLeases`' work: refused with `LeaseLost` once this process
 * no longer holds the request.
 */
export interface EventLog {
  /**
   * Keep an event of `stream` in the session (bounded per session) and signal it on the session's channel. With
   * `running` (a request's id text), only while this process still runs that request of the session (its `running`
   * lease, not `finished` nor claimed by another process since): else nothing is kept and `LeaseLost` is thrown. A
   * session that is not live keeps nothing and tells no one: the event comes back with an empty id.
   */
  append(
    session: string,
    stream: string,
    data: string,
    options?: { readonly running?: string },
  ): MaybePromise<StoredEvent>;
  /**
   * The events of the same stream after `lastEventId`, oldest first; undefined when the session no longer holds that
   * id (too old, never its own, or not an id this engine makes: a client's header is hostile input, never an error).
   */
  replay(session: string, lastEventId: string): MaybePromise<{ stream: string; events: StoredEvent[] } | undefined>;
}
