import {
  checkExpected,
  checkRecord,
  type ListedRecord,
  RECORD_BOUNDS,
  type RecordStore,
  type RecordSwapOptions,
  type RecordWriteOptions,
  recordsFull,
  type StoredRecord,
} from "./record-store.js";
import { utf8Length } from "./session-bounds.js";
import { SweepTimer } from "./sweep-timer.js";

/** A record as kept: live through `until` (ms, inclusive, as Redis keeps a key through its last millisecond). */
interface Kept {
  readonly value: string;
  readonly version: number;
  readonly until: number | undefined;
}

/**
 * Code point order (= UTF-8 byte order) of two well-formed strings: UTF-16 order but for a surrogate pair, which
 * stands for a code point above every unit from U+E000.
 */
export function compareKeys(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800 && y >= 0xd800) return rank(x) - rank(y);
    return x - y;
  }
  return a.length - b.length;
}

function rank(unit: number): number {
  return unit >= 0xe000 ? unit - 0x800 : unit + 0x2000;
}

/**
 * The memory engine's `RecordStore`: records in a map, their keys in a sorted array for listing, each lapsing by
 * the engine's clock when written with a `ttlMs` (dropped when met past their time, or by a sweep that does not
 * hold the process open), at most `max` live.
 */
export class RecordTable implements RecordStore {
  readonly #records = new Map<string, Kept>();
  // Every kept key, in code point order.
  readonly #keys: string[] = [];
  readonly #now: () => number;
  readonly #max: number;
  readonly #sweeps: SweepTimer;
  // No record lapses before this (ms; a lower bound, exact after a sweep): a sweep before it would drop nothing.
  #earliest: number | undefined;

  constructor(now: () => number, max: number) {
    this.#now = now;
    this.#max = max;
    this.#sweeps = new SweepTimer(now, () => this.#sweep());
  }

  /** How many records it holds (lapsed ones not yet dropped counted). */
  get size(): number {
    return this.#records.size;
  }

  readRecord(key: string): StoredRecord | undefined {
    checkRecord(key);
    const kept = this.#live(key);
    return kept === undefined ? undefined : { value: kept.value, version: kept.version };
  }

  writeRecord(key: string, value: string, options: RecordWriteOptions = {}): number | undefined {
    checkRecord(key, { value, ...options });
    const kept = this.#live(key);
    if (options.ifVersion !== undefined && options.ifVersion !== (kept?.version ?? 0)) return undefined;
    if (kept === undefined) {
      // Swept only when something may have lapsed: a refusal stays cheap.
      if (this.#records.size >= this.#max && this.#earliest !== undefined && this.#now() > this.#earliest) {
        this.#sweep();
      }
      if (this.#records.size >= this.#max) throw recordsFull(this.#max);
      this.#keys.splice(this.#position(key), 0, key);
    }
    const version = (kept?.version ?? 0) + 1;
    const until = options.ttlMs === undefined ? undefined : this.#now() + options.ttlMs;
    this.#records.set(key, { value, version, until });
    if (until !== undefined && (this.#earliest === undefined || until < this.#earliest)) this.#earliest = until;
    this.#sweeps.plan(until);
    return version;
  }

  swapRecord(
    key: string,
    expected: StoredRecord | undefined,
    value: string | undefined,
    options: RecordSwapOptions = {},
  ): number | StoredRecord | undefined {
    const { ttlMs, session } = options;
    checkRecord(key, value === undefined ? { ttlMs } : { value, ttlMs, session });
    checkExpected(expected);
    const kept = this.#live(key);
    if (
      kept === undefined ? expected !== undefined : kept.version !== expected?.version || kept.value !== expected.value
    ) {
      return kept === undefined ? undefined : { value: kept.value, version: kept.version };
    }
    if (value !== undefined) return this.writeRecord(key, value, options);
    if (kept !== undefined) this.#drop(key);
    return 0;
  }

  deleteRecord(key: string, options: { readonly ifVersion?: number } = {}): boolean {
    checkRecord(key, options);
    const kept = this.#live(key);
    if (kept === undefined || (options.ifVersion !== undefined && options.ifVersion !== kept.version)) return false;
    this.#drop(key);
    return true;
  }

  listRecords(prefix: string, options: { readonly after?: string; readonly limit: number }): ListedRecord[] {
    checkRecord(prefix, { limit: options.limit });
    if (options.after !== undefined) checkRecord(options.after);
    const after = options.after;
    let at =
      after !== undefined && compareKeys(after, prefix) >= 0 ? this.#position(after, true) : this.#position(prefix);
    const listed: ListedRecord[] = [];
    let bytes = 0;
    while (listed.length < options.limit && at < this.#keys.length && bytes < RECORD_BOUNDS.listBytes) {
      const key = this.#keys[at] as string;
      if (!key.startsWith(prefix)) break;
      const kept = this.#live(key);
      // A lapsed record met here was dropped (its key with it): the next is now at the same place.
      if (kept === undefined) continue;
      listed.push({ key, value: kept.value, version: kept.version });
      bytes += utf8Length(kept.value);
      at++;
    }
    return listed;
  }

  clearRecords(prefix: string): number {
    checkRecord(prefix);
    const from = this.#position(prefix);
    let to = from;
    let cleared = 0;
    const now = this.#now();
    while (to < this.#keys.length && (this.#keys[to] as string).startsWith(prefix)) {
      const key = this.#keys[to++] as string;
      const kept = this.#records.get(key) as Kept;
      if (kept.until === undefined || now <= kept.until) cleared++;
      this.#records.delete(key);
    }
    this.#keys.splice(from, to - from);
    return cleared;
  }

  clear(): void {
    this.#sweeps.stop();
    this.#records.clear();
    this.#keys.length = 0;
    this.#earliest = undefined;
  }

  /** The record under `key` when live; one lapsed is dropped. */
  #live(key: string): Kept | undefined {
    const kept = this.#records.get(key);
    if (kept === undefined) return undefined;
    if (kept.until === undefined || this.#now() <= kept.until) return kept;
    this.#drop(key);
    return undefined;
  }

  #drop(key: string): void {
    this.#records.delete(key);
    this.#keys.splice(this.#position(key), 1);
  }

  /** Where `key` is or would go in the sorted keys (past it, when `past` and it is there). */
  #position(key: string, past = false): number {
    let low = 0;
    let high = this.#keys.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      const order = compareKeys(this.#keys[middle] as string, key);
      if (order < 0 || (past && order === 0)) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  /** Drop every lapsed record; when the next live one lapses, if any. */
  #sweep(): number | undefined {
    const now = this.#now();
    let earliest: number | undefined;
    let kept = 0;
    for (const key of this.#keys) {
      const { until } = this.#records.get(key) as Kept;
      if (until !== undefined && now > until) {
        this.#records.delete(key);
        continue;
      }
      if (until !== undefined && (earliest === undefined || until < earliest)) earliest = until;
      this.#keys[kept++] = key;
    }
    this.#keys.length = kept;
    this.#earliest = earliest;
    return earliest;
  }
}
