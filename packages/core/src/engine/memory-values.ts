import { checkKeyValue, type KeyValueStore, storeFull } from "./key-value-store.js";
import { SweepTimer } from "./sweep-timer.js";

/** A value or a counter, live until `until` (ms, inclusive: as Redis keeps a key through its last millisecond). */
interface Kept<T> {
  readonly kept: T;
  readonly until: number;
}

/** Entries that lapse by the engine's clock: dropped on the next read of them past their time, or by a sweep. */
class Lapsing<T> {
  readonly #entries = new Map<string, Kept<T>>();
  readonly #now: () => number;
  // No entry lapses before this (ms; a lower bound, exact after a sweep): a sweep before it would drop nothing.
  #earliest: number | undefined;

  constructor(now: () => number) {
    this.#now = now;
  }

  get size(): number {
    return this.#entries.size;
  }

  live(key: string): Kept<T> | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (this.#now() <= entry.until) return entry;
    this.#entries.delete(key);
    return undefined;
  }

  set(key: string, kept: T, until: number): void {
    this.#entries.set(key, { kept, until });
    if (this.#earliest === undefined || until < this.#earliest) this.#earliest = until;
  }

  /** Whether an entry may have lapsed unread (a sweep would drop something). */
  mayHaveLapsed(): boolean {
    return this.#earliest !== undefined && this.#now() > this.#earliest;
  }

  delete(key: string): boolean {
    return this.#entries.delete(key);
  }

  /** Drop what lapsed; when the next live one lapses, if any. */
  sweep(): number | undefined {
    const now = this.#now();
    let earliest: number | undefined;
    for (const [key, { until }] of this.#entries) {
      if (now > until) this.#entries.delete(key);
      else if (earliest === undefined || until < earliest) earliest = until;
    }
    this.#earliest = earliest;
    return earliest;
  }

  clear(): void {
    this.#entries.clear();
    this.#earliest = undefined;
  }
}

/**
 * The memory engine's `KeyValueStore`: values and counters in two maps, each at most `max` live, lapsing by the
 * engine's clock (dropped when read past their time, or by a sweep: a timer that does not hold the process open).
 */
export class ValueTable implements KeyValueStore {
  readonly #values: Lapsing<string>;
  readonly #counters: Lapsing<number>;
  readonly #now: () => number;
  readonly #max: number;
  // Values past their time are dropped by a sweep at most a second late (a read never finds them).
  readonly #sweeps: SweepTimer;

  constructor(now: () => number, max: number) {
    this.#now = now;
    this.#max = max;
    this.#values = new Lapsing(now);
    this.#counters = new Lapsing(now);
    this.#sweeps = new SweepTimer(now, () => {
      const next = [this.#values.sweep(), this.#counters.sweep()].filter((at) => at !== undefined);
      return next.length > 0 ? Math.min(...next) : undefined;
    });
  }

  /** How many values and counters it holds (lapsed ones not yet dropped counted). */
  get size(): number {
    return this.#values.size + this.#counters.size;
  }

  setValue(key: string, value: string, options: { readonly ttlMs: number; readonly ifAbsent?: boolean }): boolean {
    checkKeyValue(key, { value, ttlMs: options.ttlMs });
    const held = this.#values.live(key) !== undefined;
    if (held && options.ifAbsent) return false;
    if (!held) this.#room(this.#values, "values");
    const until = this.#now() + options.ttlMs;
    this.#values.set(key, value, until);
    this.#sweeps.plan(until);
    return true;
  }

  getValue(key: string): string | undefined {
    checkKeyValue(key);
    return this.#values.live(key)?.kept;
  }

  takeValue(key: string): string | undefined {
    checkKeyValue(key);
    const entry = this.#values.live(key);
    if (entry !== undefined) this.#values.delete(key);
    return entry?.kept;
  }

  deleteValue(key: string): boolean {
    checkKeyValue(key);
    return this.#values.live(key) !== undefined && this.#values.delete(key);
  }

  countUp(key: string, windowMs: number): number {
    checkKeyValue(key, { windowMs });
    const entry = this.#counters.live(key);
    if (entry !== undefined) {
      this.#counters.set(key, entry.kept + 1, entry.until);
      return entry.kept + 1;
    }
    this.#room(this.#counters, "counters");
    const until = this.#now() + windowMs;
    this.#counters.set(key, 1, until);
    this.#sweeps.plan(until);
    return 1;
  }

  clear(): void {
    this.#sweeps.stop();
    this.#values.clear();
    this.#counters.clear();
  }

  /** Throw when `entries` holds `max` live ones (those lapsed but not yet swept are dropped first). */
  #room(entries: Lapsing<unknown>, what: "values" | "counters"): void {
    if (entries.size < this.#max) return;
    // Swept only when something may have lapsed: a refusal stays cheap.
    if (entries.mayHaveLapsed()) entries.sweep();
    if (entries.size >= this.#max) throw storeFull(what, this.#max);
  }
}
