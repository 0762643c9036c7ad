import type { MaybePromise } from "../wire/maybe.js";
import { EngineUnavailable } from "./engine-errors.js";
import { checkText } from "./key-value-store.js";
import { utf8Length } from "./session-bounds.js";

/** A live record: its value (a string the caller encodes) and its version (1 when made, +1 on each write). */
export interface StoredRecord {
  readonly value: string;
  readonly version: number;
}

/** A record as a list gives it, with its key. */
export interface ListedRecord extends StoredRecord {
  readonly key: string;
}

/**
 * How a record is written: at `ifVersion` only (compare-and-set; 0 means absent), lapsing `ttlMs` after the write,
 * and, with `session`, as part of that handshake-era session's store (its key under `storeScopePrefix("x", session)`):
 * written only while the engine holds the session live, and deleted by the engine when the session ends.
 */
export interface RecordWriteOptions {
  readonly ifVersion?: number;
  readonly ttlMs?: number;
  readonly session?: string;
}

/** How `swapRecord` writes: as `writeRecord`, its compare being the whole record's rather than `ifVersion`. */
export type RecordSwapOptions = Omit<RecordWriteOptions, "ifVersion">;

/**
 * A server's own data, kept by its engine and shared by every process of the server: records under keys the caller
 * chooses (core's `Store` prefixes them by scope), each with a version for compare-and-set, kept until deleted or
 * until their `ttlMs`, listed by prefix in key order. Values are strings the caller encodes (core's `Store` writes
 * JSON). Bounded (`RECORD_BOUNDS`): a key, value or option out of bounds throws before anything is done
 * (`checkRecord`); a store holding `maxRecords` live records refuses one more with `EngineUnavailable` (a transport
 * answers 503), as it does when its store is out of reach (within the engine's command timeout: never a hang).
 */
export interface RecordStore {
  /** The live record under `key`, else undefined. */
  readRecord(key: string): MaybePromise<StoredRecord | undefined>;
  /**
   * Write `value` under `key`: the record's new version (1 for a new record, +1 on each write), or undefined when
   * `ifVersion` was given and the live record's version is not that (0: only when there is no live record), and
   * nothing changed — atomic across processes. `ttlMs`: the record lapses that long after this write; without it, it
   * is kept until deleted (a write without ttlMs removes an earlier expiry). `session`: the record belongs to that
   * session of the engine's `SessionStore`; when the engine holds no such live session, nothing is written and it
   * throws (`sessionEnded`), atomically with the check, so a session's end never leaves one of its records behind.
   */
  writeRecord(key: string, value: string, options?: RecordWriteOptions): MaybePromise<number | undefined>;
  /**
   * Write `value` under `key` (undefined: delete the record) only when the live record is exactly `expected`, its
   * version and its value (undefined: only when there is none) — atomic across processes. The new version (0 when
   * deleted, or when there was nothing to delete), or, when the live record was not `expected`, that record
   * (undefined: none), nothing changed: a compare-and-set whose loser needs no read to try again. The value is
   * compared too because a record deleted (or lapsed) and made again starts again at version 1. `ttlMs` as for
   * `writeRecord`, and `session` too when it writes (a delete needs no live session).
   */
  swapRecord(
    key: string,
    expected: StoredRecord | undefined,
    value: string | undefined,
    options?: RecordSwapOptions,
  ): MaybePromise<number | StoredRecord | undefined>;
  /** Delete the record (only at `ifVersion`, when given): whether a live one was deleted. */
  deleteRecord(key: string, options?: { readonly ifVersion?: number }): MaybePromise<boolean>;
  /**
   * Live records whose key starts with `prefix`, in key order (Unicode code point order = UTF-8 byte order, what Redis
   * ZRANGEBYLEX gives), strictly after `after` when given, at most `limit` (1..RECORD_BOUNDS.listLimit), and none past
   * the one whose value brings their values' total to `RECORD_BOUNDS.listBytes` (UTF-8) or beyond: one list never
   * answers more than that and one value, and a caller that got that much goes on after the last.
   */
  listRecords(
    prefix: string,
    options: { readonly after?: string; readonly limit: number },
  ): MaybePromise<ListedRecord[]>;
  /** Delete every record whose key starts with `prefix`: how many. */
  clearRecords(prefix: string): MaybePromise<number>;
}

/** The bounds of every `RecordStore`: what one key, value and list may be, and how many records a store keeps. */
export const RECORD_BOUNDS = {
  /** The longest key, in UTF-16 code units (longer: RangeError). */
  keyChars: 1024,
  /** The largest value, in UTF-8 bytes (larger: RangeError). */
  valueBytes: 1_048_576,
  /** The most records one list gives (`limit` above it: RangeError). */
  listLimit: 1000,
  /** A list stops after the record whose value brings its values' total to this many UTF-8 bytes (4 MiB) or past. */
  listBytes: 4_194_304,
  /** Live records a store keeps (one more: `EngineUnavailable`). */
  maxRecords: 1_000_000,
} as const;

function checkWhole(name: string, n: unknown, min: number, max: number): void {
  if (typeof n !== "number") throw new TypeError(`${name} must be a number, not ${typeof n}`);
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    throw new RangeError(`${name} must be a whole number from ${min} to ${max}, not ${n}`);
  }
}

/**
 * Throw for what no `RecordStore` takes, before it does anything: a key (or prefix, or `after`) that is not a
 * well-formed string of at most `keyChars`, a value not one of at most `valueBytes` (UTF-8), a `ttlMs` that is not a
 * whole number above 0, an `ifVersion` not a whole number from 0, a `limit` not one from 1 to `listLimit`, a
 * `session` whose store scope the key is not in (TypeError for the wrong type or a lone surrogate, RangeError for a
 * size or number out of range, or a key outside its session's scope).
 */
export function checkRecord(
  key: string,
  given: RecordWriteOptions & { readonly value?: string; readonly limit?: number } = {},
): void {
  checkText("key", key);
  if (key.length > RECORD_BOUNDS.keyChars) {
    throw new RangeError(`key is ${key.length} characters long, more than the ${RECORD_BOUNDS.keyChars} allowed`);
  }
  if (Object.hasOwn(given, "value")) {
    checkText("value", given.value);
    // Three bytes per unit at most: most values need no count.
    const bytes = given.value.length * 3 <= RECORD_BOUNDS.valueBytes ? 0 : utf8Length(given.value);
    if (bytes > RECORD_BOUNDS.valueBytes) {
      throw new RangeError(`value is ${bytes} bytes (UTF-8), more than the ${RECORD_BOUNDS.valueBytes} allowed`);
    }
  }
  // Optional options: undefined is absent.
  if (given.ttlMs !== undefined) {
    const ms: unknown = given.ttlMs;
    if (typeof ms !== "number") throw new TypeError(`ttlMs must be a number of milliseconds, not ${typeof ms}`);
    if (!Number.isSafeInteger(ms) || ms < 1) throw new RangeError(`ttlMs must be a whole number above 0, not ${ms}`);
  }
  if (given.ifVersion !== undefined) checkWhole("ifVersion", given.ifVersion, 0, Number.MAX_SAFE_INTEGER);
  if (Object.hasOwn(given, "limit")) checkWhole("limit", given.limit, 1, RECORD_BOUNDS.listLimit);
  if (given.session !== undefined) {
    checkText("session", given.session);
    const scope = sessionScopeOf(given.session);
    if (scope === undefined || !key.startsWith(scope)) {
      throw new RangeError(`a record of session ${given.session} has a key under ${scope ?? "its store scope"}`);
    }
  }
}

/** What a write for a session the engine does not hold live throws (it ended, or never was): nothing was written. */
export function sessionEnded(id: string): Error {
  return new Error(`Session ${id} has ended (or never was): its store takes no more records`);
}

/**
 * Throw for what no `RecordStore` takes as `swapRecord`'s `expected`, before it does anything: anything but
 * undefined or a record (a version from 1, a value as `checkRecord` takes one).
 */
export function checkExpected(expected: StoredRecord | undefined): void {
  if (expected === undefined) return;
  if (typeof expected !== "object" || expected === null) {
    throw new TypeError(`expected must be a record ({ value, version }) or undefined, not ${typeof expected}`);
  }
  checkWhole("expected.version", expected.version, 1, Number.MAX_SAFE_INTEGER);
  checkText("expected.value", expected.value);
  // No kept value is longer (in UTF-16 units, at most its UTF-8 bytes): such an `expected` can never match.
  if (expected.value.length > RECORD_BOUNDS.valueBytes) {
    throw new RangeError(`expected.value is longer than any value a record store keeps`);
  }
}

/** What a store holding `max` live records throws on one more: a transport answers 503 with `Retry-After`. */
export function recordsFull(max: number): EngineUnavailable {
  return new EngineUnavailable(
    `The record store is full: it keeps at most ${max} live records, and one more must wait for one to be deleted or to expire`,
  );
}

/** The longest key an author may give core's `Store`, in UTF-16 code units: the rest of `keyChars` is its scope's. */
export const STORE_KEY_CHARS = 512;
const SCOPE_ID_CHARS = RECORD_BOUNDS.keyChars - STORE_KEY_CHARS - 8;

/** The prefix of a session's records in core's `Store`, when its id fits a scope (else it can have none). */
export function sessionScopeOf(id: string): string | undefined {
  return encodeScopeId(id).length <= SCOPE_ID_CHARS ? storeScopePrefix("x", id) : undefined;
}

// A UTF-16 code unit that is half of no pair: encodeURIComponent refuses it.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

// URI-encoded, a lone surrogate as `%u` and its four hex digits (a shape encodeURIComponent never gives, so two ids
// never meet): what a subject an identity provider sends may hold, and no `:`.
function encodeScopeId(id: string): string {
  let out = "";
  let from = 0;
  for (const match of id.matchAll(LONE_SURROGATE)) {
    out += `${encodeURIComponent(id.slice(from, match.index))}%u${match[0].charCodeAt(0).toString(16).toUpperCase()}`;
    from = match.index + 1;
  }
  return out + encodeURIComponent(id.slice(from));
}

/**
 * Where core's `Store` keeps a scope's records: `d:s:` for the whole server, `d:u:<subject>:` for one user,
 * `d:x:<session id>:` for one handshake-era session, the id URI-encoded (it then holds no `:`, so no scope's prefix
 * starts another's). An engine that ends sessions deletes the records written with its `session` as it ends one.
 */
export function storeScopePrefix(kind: "s" | "u" | "x", id?: string): string {
  if (id === undefined) return `d:${kind}:`;
  const encoded = encodeScopeId(id);
  if (encoded.length > SCOPE_ID_CHARS) {
    throw new RangeError(
      `a store scope's id is at most ${SCOPE_ID_CHARS} characters URI-encoded; this ${kind === "u" ? "subject" : "session id"} is ${encoded.length}`,
    );
  }
  return `d:${kind}:${encoded}:`;
}
