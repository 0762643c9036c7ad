import type { KeyValueStore } from "@toolsmith/core/engine";
import { createMemoryEngine, type MemoryEngine } from "@toolsmith/core/engine";

const engines: MemoryEngine[] = [];

/**
 * The memory engine's KeyValueStore, with each write also kept as written (key, sealed value, TTL), so a test can
 * read the store raw: what a reader of a shared engine would see.
 */
export function recordedStore() {
  const engine = createMemoryEngine();
  engine.start({ name: "clients-test" });
  engines.push(engine);
  const values = new Map<string, { readonly value: string; readonly ttlMs: number }>();
  const store: KeyValueStore = {
    setValue(key, value, options) {
      values.set(key, { value, ttlMs: options.ttlMs });
      return engine.setValue(key, value, options);
    },
    getValue: (key) => engine.getValue(key),
    takeValue: (key) => engine.takeValue(key),
    deleteValue: (key) => engine.deleteValue(key),
    countUp: (key, windowMs) => engine.countUp(key, windowMs),
  };
  return { store, values };
}

/** Close every engine recordedStore started. */
export function closeRecordedStores(): void {
  for (const engine of engines.splice(0)) engine.close();
}
