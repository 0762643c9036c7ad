import type { MaybePromise } from "../wire/maybe.js";
import type { Unfollow } from "./lifecycle.js";

/** A request served with an SSE reply, owned by a process until it answers or its lease lapses. */
export interface RunningRequest {
  readonly session: string;
  /** The request's id exactly as the client wrote it (JSON text). */
  readonly request: string;
  /** The stream its reply goes on. */
  readonly stream: string;
}

/**
 * Leases on the handshake-era requests this process answers over SSE, so that a request whose process stopped still
 * gets one answer. The engine renews this process's lease while it lives; once the lease lapses unrenewed (the
 * process died or closed), each request it still ran is given to exactly one other process, once (`onOrphan`),
 * which answers it with an error on its stream. What `running` acknowledged survives this process (a shared engine
 * keeps it for a while, bounded in time, for another to claim). A lease that merely lapsed while the store was away,
 * with nothing claimed, is no loss: the process still running the request goes on writing its reply. Once another
 * process claimed it, this process's fenced writes for it (`EventLog.append` with `running`) throw `LeaseLost` and
 * keep nothing, so the client gets one answer, the claimer's. An engine that is not shared orphans nothing.
 */
export interface RequestLeases {
  /** This process runs `request` (its lease covers it until `finished`). */
  running(request: RunningRequest): MaybePromise<void>;
  /** It answered (or gave up): the lease covers it no more. A request not running is no fault. */
  finished(session: string, request: string): MaybePromise<void>;
  /**
   * Hear of requests whose owning process's lease lapsed: each is given to exactly one process, once (which puts
   * an error reply on its stream). An engine may claim only while someone listens.
   */
  onOrphan(listener: (request: RunningRequest) => void): Unfollow;
}
