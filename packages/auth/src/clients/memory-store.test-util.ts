import type { KeyValueStore } from "@toolsmith/core/engine";

/** A KeyValueStore on a Map for these tests, keeping each key's TTL so a test can read the store raw. */
export function rawStore() {
  const values = new Map<string, { value: string; ttlMs: number; until: number }>();
  const counters = new Map<string, { count: number; until: number }>();
  const live = (key: string) => {
    const entry = values.get(key);
    if (entry !== undefined && entry.until <= Date.now()) values.delete(key);
    return values.get(key);
  };
  const store: KeyValueStore = {
    setValue(key, value, { ttlMs, ifAbsent }) {
      if (ifAbsent === true && live(key) !== undefined) return false;
      values.set(key, { value, ttlMs, until: Date.now() + ttlMs });
      return true;
    },
    getValue: (key) => live(key)?.value,
    takeValue(key) {
      const entry = live(key);
      values.delete(key);
      return entry?.value;
    },
    deleteValue: (key) => values.delete(key) && true,
    countUp(key, windowMs) {
      const counter = counters.get(key);
      if (counter === undefined || counter.until <= Date.now()) {
        counters.set(key, { count: 1, until: Date.now() + windowMs });
        return 1;
      }
      counter.count += 1;
      return counter.count;
    },
  };
  return { store, values };
}
