import type { LogLevel } from "../protocol/log-levels.js";
import type { MaybePromise } from "../wire/maybe.js";

/** Stop hearing. */
export type Unfollow = () => MaybePromise<void>;

/** The server an engine starts for: its name, and its log (what the server's logger hears). */
export interface EngineOwner {
  readonly name: string;
  log?(entry: { readonly level: LogLevel; readonly message: string }): void;
}

/**
 * The role every engine plays, whatever else it does: who this process is among the server's, its start and close,
 * and its store coming back after an outage. An engine is one object per server process that plays this role and
 * any of the others (`SessionStore`, `EventLog`, `SessionChannel`, `RequestLeases`, `ServerBus`, `TaskStore`;
 * `Engine` is all of them). Every method of every role may answer at once or with a promise; one that reaches a
 * shared store rejects with `EngineUnavailable` within a bounded time when it cannot (it never waits for the store
 * to come back, and queues nothing while it is away). Listeners given to any role are called outside the call that
 * caused what they hear, and a listener that throws stops no other.
 */
export interface EngineLifecycle {
  /** This process's id among the server's processes (unique, made at start). */
  readonly node: string;
  /** True when the engine is shared between processes (a process may then never have seen a session it serves). */
  readonly shared: boolean;
  /**
   * Connect and start the engine's own timers (leases, expiry); `server.name` namespaces its keys unless the
   * engine was given a namespace; what the engine has to say about its store (a risky setting, say) goes to
   * `server.log`, the server's own log. Idempotent; a start that failed may be tried again.
   */
  start(server: EngineOwner): MaybePromise<void>;
  /** Stop timers, drop subscriptions, disconnect; what this process owned lapses with its lease. Idempotent. */
  close(): MaybePromise<void>;
  /**
   * Hear when the engine had lost its store and has it again: what was broadcast or signalled meanwhile may have
   * been missed (pub/sub keeps nothing), and what this process failed to say may be said now. Never at the first
   * start. Core listens only to a shared engine.
   */
  onResume(listener: () => void): Unfollow;
}
