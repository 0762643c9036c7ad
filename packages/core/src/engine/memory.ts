import { InMemoryEngine } from "./in-memory-engine.js";
import { KEY_VALUE_BOUNDS } from "./key-value-store.js";
import type { MemoryEngine, MemoryEngineOptions } from "./memory-engine.js";
import { RecordTable } from "./memory-records.js";
import { ValueTable } from "./memory-values.js";
import { RECORD_BOUNDS } from "./record-store.js";

export type { MemoryEngine, MemoryEngineOptions } from "./memory-engine.js";

const DEFAULT_EVENTS_PER_SESSION = 512;

/**
 * The default engine: every role held in this process's memory, for a server that runs as one process. Synchronous
 * throughout; its only timers (idle expiry, the task and value sweeps) do not keep the process alive.
 * @example
 * ```ts source="examples/engine.ts#createMemoryEngine"
 * const engine = createMemoryEngine({ eventsPerSession: 1024 });
 * const server = createServer({ name: "notes", version: "1.0.0", engine });
 * ```
 */
export function createMemoryEngine(options: MemoryEngineOptions = {}): MemoryEngine {
  const eventsPerSession = options.eventsPerSession ?? DEFAULT_EVENTS_PER_SESSION;
  const maxValues = options.maxValues ?? KEY_VALUE_BOUNDS.maxValues;
  const maxRecords = options.maxRecords ?? RECORD_BOUNDS.maxRecords;
  for (const [name, value] of Object.entries({ eventsPerSession, maxValues, maxRecords })) {
    if (!Number.isInteger(value) || value < 1) throw new RangeError(`${name} must be a positive integer, not ${value}`);
  }
  const now = options.now ?? Date.now;
  return new InMemoryEngine(eventsPerSession, now, new ValueTable(now, maxValues), new RecordTable(now, maxRecords));
}
