import type { MaybePromise } from "../wire/maybe.js";
import { EngineUnavailable } from "./engine-errors.js";
import { utf8Length } from "./session-bounds.js";

/**
 * Short-lived values a server keeps beside its sessions and tasks, shared by every process of the server: what a
 * sign-in flow holds between its steps (pending authorizations, single-use codes, registered clients, refresh
 * tokens), and counters for per-caller limits. Every value expires; values are strings the caller encodes (and
 * encrypts, when secret: a shared engine keeps them in clear). Keys are the caller's, within the engine's namespace;
 * counters are kept apart from values (one key may name both). Bounded (`KEY_VALUE_BOUNDS`): a key, value or time
 * out of bounds throws before anything is done (`checkKeyValue`), and a store full of live values refuses one more
 * with `EngineUnavailable` (a transport answers 503), as it does when its store is out of reach.
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

/** The bounds of every `KeyValueStore`: what one key and one value may be, and how many a store keeps by default. */
export const KEY_VALUE_BOUNDS = {
  /** The longest key, in UTF-16 code units (longer: RangeError). */
  keyChars: 512,
  /** The largest value, in UTF-8 bytes (larger: RangeError). */
  valueBytes: 65_536,
  /** Live values a store keeps by default, and live counters apart (one more: `EngineUnavailable`). */
  maxValues: 100_000,
} as const;

// A UTF-16 unit of a pair standing alone: a shared store would keep it as U+FFFD, so it is refused everywhere.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Throw a TypeError unless `text` is a well-formed string (no lone surrogate); what every store checks of its keys. */
export function checkText(name: string, text: unknown): asserts text is string {
  if (typeof text !== "string") throw new TypeError(`${name} must be a string, not ${typeof text}`);
  if (LONE_SURROGATE.test(text)) throw new TypeError(`${name} must be well-formed Unicode (it has a lone surrogate)`);
}

/**
 * Throw for what no `KeyValueStore` takes, before it does anything: a key that is not a well-formed string of at
 * most `keyChars`, a value not one of at most `valueBytes`, a `ttlMs` or `windowMs` that is not a whole number
 * above 0 (TypeError for the wrong type or a lone surrogate, RangeError for a size or number out of range).
 */
export function checkKeyValue(
  key: string,
  given: { readonly value?: string; readonly ttlMs?: number; readonly windowMs?: number } = {},
): void {
  checkText("key", key);
  if (key.length > KEY_VALUE_BOUNDS.keyChars) {
    throw new RangeError(`key is ${key.length} characters long, more than the ${KEY_VALUE_BOUNDS.keyChars} allowed`);
  }
  if (Object.hasOwn(given, "value")) {
    checkText("value", given.value);
    // Three bytes per unit at most: most values need no count.
    const bytes = given.value.length * 3 <= KEY_VALUE_BOUNDS.valueBytes ? 0 : utf8Length(given.value);
    if (bytes > KEY_VALUE_BOUNDS.valueBytes) {
      throw new RangeError(`value is ${bytes} bytes (UTF-8), more than the ${KEY_VALUE_BOUNDS.valueBytes} allowed`);
    }
  }
  for (const name of ["ttlMs", "windowMs"] as const) {
    if (!Object.hasOwn(given, name)) continue;
    const ms: unknown = given[name];
    if (typeof ms !== "number") throw new TypeError(`${name} must be a number of milliseconds, not ${typeof ms}`);
    if (!Number.isSafeInteger(ms) || ms < 1) throw new RangeError(`${name} must be a whole number above 0, not ${ms}`);
  }
}

/** What a store full of live values (or counters) throws on one more: a transport answers 503 with `Retry-After`. */
export function storeFull(what: "values" | "counters", max: number): EngineUnavailable {
  return new EngineUnavailable(
    `The key-value store is full: it keeps at most ${max} live ${what}, and one more must wait for one to expire`,
  );
}
