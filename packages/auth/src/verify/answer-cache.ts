// How often an entry read again is made the most recent: the order is by the second, not by the read.
const REFRESH_MS = 1000;

/**
 * A bounded LRU of answers by key, each kept until its own deadline (ms since the epoch): a read past it misses,
 * and the least recently used entry goes when a new one would exceed `maxEntries`.
 */
export class AnswerCache<T> {
  readonly #entries = new Map<string, { value: T; until: number; used: number }>();

  constructor(readonly maxEntries: number) {
    if (!Number.isInteger(maxEntries) || maxEntries < 0) throw new TypeError("cacheMaxEntries must be a whole number");
  }

  get size(): number {
    return this.#entries.size;
  }

  get(key: string, now: number): T | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.until <= now) {
      this.#entries.delete(key);
      return undefined;
    }
    // Made the most recent at most once a second: a client's every request would otherwise move its entry.
    if (now - entry.used >= REFRESH_MS) {
      entry.used = now;
      this.#entries.delete(key);
      this.#entries.set(key, entry);
    }
    return entry.value;
  }

  set(key: string, value: T, until: number, now: number): void {
    this.#entries.delete(key);
    if (until <= now || this.maxEntries === 0) return;
    this.#entries.set(key, { value, until, used: now });
    if (this.#entries.size > this.maxEntries) this.#entries.delete(this.#entries.keys().next().value as string);
  }
}
