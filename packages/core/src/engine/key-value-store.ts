import type { MaybePromise } from "../wire/maybe.js";

/**
 * Short-lived values a server keeps beside its sessions and tasks, shared by every process of the server: what a
 * sign-in flow holds between its steps (pending authorizations, single-use codes, registered clients, refresh
 * tokens), and counters for per-caller limits. Every value expires; values are strings the caller encodes (and
 * encrypts, when secret: a shared engine keeps them in clear). Keys are the caller's, within the engine's namespace.
 */
export interface KeyValueStore {
  /**
   * Keep `value` under `key` for `ttlMs` milliseconds (a whole number above 0). With `ifAbsent`, only when no live
   * value is there (atomically, across processes): false when one was, and nothing changed. True when stored.
   */
  setValue(
    key: string,
    value: string,
    options: { readonly ttlMs: number; readonly ifAbsent?: boolean },
  ): MaybePromise<boolean>;
  /** The live value under `key`, else undefined. */
  getValue(key: string): MaybePromise<string | undefined>;
  /** The live value under `key`, deleted as it is read: of callers taking one key at once, exactly one gets it. */
  takeValue(key: string): MaybePromise<string | undefined>;
  /** Delete the value under `key`: whether there was a live one. */
  deleteValue(key: string): MaybePromise<boolean>;
  /**
   * Count one more under `key` and answer the count, atomically: the first count is 1, and the counter lapses
   * `windowMs` after it was made (a fixed window, for limits such as registrations per caller per hour).
   */
  countUp(key: string, windowMs: number): MaybePromise<number>;
}
