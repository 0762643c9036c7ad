import { type Engine, RECORD_BOUNDS, type RecordStore } from "../engine/engine.js";
import { andThen, attempt, type MaybePromise } from "../wire/maybe.js";
import type { LogEntry } from "./logger.js";

// One server's store as its scopes share it: the engine's records (started on first use), the watchers, the log.

/** What a store tells a watcher: the key (in the watched store's scope) and its new value (undefined: deleted). */
export interface StoreChange {
  readonly key: string;
  readonly value: unknown;
}

/** What a store watches: one key, or every key under a prefix. */
export type StoreWatch = string | { readonly prefix: string };

interface Watcher {
  readonly scope: string;
  readonly key: string;
  readonly prefix: boolean;
  readonly listener: (change: StoreChange) => void;
}

const RECORD_MEMBERS = ["readRecord", "writeRecord", "deleteRecord", "listRecords", "clearRecords"] as const;

/** Whether `engine` plays the `RecordStore` role (every member a function). */
export function keepsRecords(engine: object): engine is RecordStore {
  return RECORD_MEMBERS.every((member) => typeof (engine as Record<string, unknown>)[member] === "function");
}

/** A scope's prefix of engine keys: `d:<kind>:` for the server, `d:<kind>:<id encoded>:` for a user or session. */
export function scopePrefix(kind: "s" | "u" | "x", id?: string): string {
  if (id === undefined) return `d:${kind}:`;
  // Encoded, an id holds no ":", so no scope's prefix starts another's.
  const encoded = encodeURIComponent(id);
  if (encoded.length > SCOPE_ID_CHARS) {
    throw new RangeError(
      `a store scope's id is at most ${SCOPE_ID_CHARS} characters encoded; this ${kind === "u" ? "subject" : "session id"} is ${encoded.length}`,
    );
  }
  return `d:${kind}:${encoded}:`;
}

/** The longest key an author may use, in UTF-16 code units: room is left for the scope's prefix. */
export const STORE_KEY_CHARS = 512;
const SCOPE_ID_CHARS = RECORD_BOUNDS.keyChars - STORE_KEY_CHARS - 8;

/** A server's store: its engine's records and who watches them in this process. */
export class StoreHub {
  readonly #engine: () => Engine;
  readonly #start: () => MaybePromise<void>;
  readonly #log: (entry: LogEntry) => void;
  readonly #watchers = new Set<Watcher>();

  constructor(engine: () => Engine, start: () => MaybePromise<void>, log: (entry: LogEntry) => void) {
    this.#engine = engine;
    this.#start = start;
    this.#log = log;
  }

  /** The engine's records, the engine started (a promise only while it starts). */
  records(): MaybePromise<RecordStore> {
    const engine = this.#engine();
    if (!keepsRecords(engine)) {
      const name = (engine as { constructor?: { name?: unknown } }).constructor?.name;
      throw new TypeError(
        `The store needs an engine that keeps records (the RecordStore role: ${RECORD_MEMBERS.join(", ")}); this server's engine${typeof name === "string" ? ` (${name})` : ""} does not`,
      );
    }
    const started = this.#start();
    return started === undefined ? engine : Promise.resolve(started).then(() => engine);
  }

  log(entry: LogEntry): void {
    this.#log(entry);
  }

  /** Tell `listener` of each change made in this process under `scope` to `watched`; what stops it. */
  watch(scope: string, watched: StoreWatch, listener: (change: StoreChange) => void): () => void {
    const key = typeof watched === "string" ? watched : watched.prefix;
    if (typeof key !== "string") throw new TypeError("watch takes a key, or { prefix }, as a string");
    if (typeof listener !== "function") throw new TypeError("watch takes a listener function");
    const watcher: Watcher = { scope, key, prefix: typeof watched !== "string", listener };
    this.#watchers.add(watcher);
    return () => {
      this.#watchers.delete(watcher);
    };
  }

  /** A change was made in this process: its watchers hear it (one that throws is logged, the others still hear). */
  changed(scope: string, key: string, value: unknown): void {
    for (const watcher of this.#watchers) {
      if (watcher.scope !== scope || !(watcher.prefix ? key.startsWith(watcher.key) : key === watcher.key)) continue;
      try {
        watcher.listener({ key, value });
      } catch (error) {
        this.#log({
          level: "error",
          message: `a store watcher of "${key}" threw: ${String(error)}`,
          error,
          method: "(store)",
        });
      }
    }
  }

  /** Delete a session's records (it ended), when the engine keeps records; failures are logged. */
  clearSession(id: string): void {
    if (!keepsRecords(this.#engine())) return;
    const failed = (error: unknown) =>
      this.#log({
        level: "warning",
        message: `the store could not clear the records of ended session ${id}: ${String(error)}`,
        error,
        method: "(store)",
      });
    void attempt(
      () => andThen(this.records(), (store) => andThen(store.clearRecords(scopePrefix("x", id)), () => {})),
      failed,
    );
  }
}
