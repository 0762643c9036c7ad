import type { MaybePromise } from "../wire/maybe.js";
import type { StoredEvent } from "./event-log.js";
import type { Unfollow } from "./lifecycle.js";
import type { RunningRequest } from "./request-leases.js";

/** What travels on a session's channel to the processes following it. */
export type SessionSignal =
  /** An event was appended (by any process): whoever holds that stream live writes it. */
  | { readonly type: "event"; readonly event: StoredEvent }
  /**
   * A client message for whichever process it concerns: its answer to a server request, or a cancellation. With `to`
   * (the process that made the request it answers), the engine also keeps it for that process until it takes it
   * (`takeClientLines`): a signal missed while its subscription was down is not lost.
   */
  | {
      readonly type: "client";
      readonly line: string;
      readonly from: string;
      readonly to?: string;
      /**
       * A cancellation's request (its id's JSON text): the engine also keeps the line with the session (bounded, until
       * the session ends) for whichever process runs that request to take (`takeCancels`) if it missed this signal.
       */
      readonly cancels?: string;
    }
  /** A stream was resumed by `holder`: any other process holding it closes its copy. */
  | { readonly type: "taken"; readonly stream: string; readonly holder: string }
  /** The session ended (DELETE or expiry): every process drops what it holds of it. */
  | { readonly type: "ended" };

/**
 * Each handshake-era session's channel between the processes serving it: an event appended, the client's answer
 * to a question another process asked, a cancellation, a stream taken over, the session's end. Ordered: every
 * process following a session hears each of its signals once, in the order they were sent, its own included, never
 * inside the call that sent it. At most once across an outage of the store (pub/sub keeps nothing), so what must
 * reach its process is also kept: a client line addressed to a process (`to`) until that process takes it (bounded:
 * the memory and Redis engines keep the newest 256, at most 16 from one session, so one client's flood pushes out no
 * other's answer), and a cancellation (`cancels`) with its live session until the process running that request
 * takes it or the session ends (the newest 64 of the session). Played with `SessionStore` (what is kept goes with
 * its session) and `EventLog` (whose appends travel here); `takeCancels` names requests of `RequestLeases`.
 */
export interface SessionChannel {
  /** Say something to the processes following `session` (a `client` signal with `to` is also kept for that process). */
  signal(session: string, signal: SessionSignal): MaybePromise<void>;
  /** Hear a session's signals (every process following it hears each once, in order, its own included). */
  follow(session: string, listener: (signal: SessionSignal) => void): MaybePromise<Unfollow>;
  /**
   * Take the client lines kept for this process (`client` signals whose `to` is this node), oldest first, each once:
   * its wake-up, or its catch-up after its subscription came back. Kept a while, bounded (the newest few hundred).
   */
  takeClientLines(): MaybePromise<readonly { readonly session: string; readonly line: string }[]>;
  /**
   * Of `running` (the requests this process runs, by session and id text), those a kept cancellation names
   * (`client` signals with `cancels`), each with its line and taken once: one round trip for all of them, made while
   * they run (a cancellation missed on the bus still stops its handler).
   */
  takeCancels(
    running: readonly Pick<RunningRequest, "session" | "request">[],
  ): MaybePromise<readonly { readonly session: string; readonly request: string; readonly line: string }[]>;
}
