import {
  type Engine,
  EngineUnavailable,
  isEngineUnavailable,
  type RecordStore,
  type RecordWriteOptions,
  storeScopePrefix,
} from "../engine/engine.js";
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

const RECORD_MEMBERS = [
  "readRecord",
  "writeRecord",
  "swapRecord",
  "deleteRecord",
  "listRecords",
  "clearRecords",
] as const;

/** Whether `engine` plays the `RecordStore` role (every member a function). */
export function keepsRecords(engine: object): engine is RecordStore {
  return RECORD_MEMBERS.every((member) => typeof (engine as Record<string, unknown>)[member] === "function");
}

/** A server's store: its engine's records, and who in this process watches them. */
export class StoreHub {
  readonly #engine: () => Engine;
  readonly #start: () => MaybePromise<void>;
  readonly #log: (entry: LogEntry) => void;
  readonly #watchers = new Set<Watcher>();

  // Per key, the last update of this process in flight (settled, never rejecting: to the engine's unavailability
  // when that is how it ended): the next one waits for it.
  readonly #turns = new Map<string, Promise<EngineUnavailable | undefined>>();
  // The open sessions of connections' own (stdio, the test client), each with whether its store was written: this
  // process alone keeps them, and clears one at its end only when written.
  readonly #own = new Map<string, boolean>();
  // The engine last found to keep records (a server's engine seldom changes: checked again when it does).
  #keeps: RecordStore | undefined;

  constructor(engine: () => Engine, start: () => MaybePromise<void>, log: (entry: LogEntry) => void) {
    this.#engine = engine;
    this.#start = start;
    this.#log = log;
  }

  /** The engine's records, the engine started (a promise only while it starts). */
  records(): MaybePromise<RecordStore> {
    const engine = this.#engine();
    if (engine !== this.#keeps && !keepsRecords(engine)) {
      const name = (engine as { constructor?: { name?: unknown } }).constructor?.name;
      throw new TypeError(
        `The store needs an engine that keeps records (the RecordStore role: ${RECORD_MEMBERS.join(", ")}); this server's engine${typeof name === "string" ? ` (${name})` : ""} does not`,
      );
    }
    this.#keeps = engine;
    const started = this.#start();
    return started === undefined ? engine : Promise.resolve(started).then(() => engine);
  }

  /**
   * Run `update` after every earlier update of `key` in this process has settled: writers of one process never race
   * each other's compare-and-set (they would only lose tries to it), so only other processes' writes make one retry.
   * When the one before ends with the engine unavailable (out of reach, or lost to other writers), those waiting
   * behind it fail with it at once: on a frozen store each would otherwise wait out a command timeout of its own.
   */
  inTurn<T>(key: string, update: () => Promise<T>): Promise<T> {
    const before = this.#turns.get(key);
    const run =
      before === undefined
        ? update()
        : before.then((failed) =>
            failed === undefined
              ? update()
              : Promise.reject(
                  new EngineUnavailable(failed.message, { cause: failed, retryAfterSeconds: failed.retryAfterSeconds }),
                ),
          );
    // Settled either way (to the engine's unavailability when that is how it ended); the last of its key leaves the
    // map as it settles.
    const release = (failed: EngineUnavailable | undefined) => {
      if (this.#turns.get(key) === settled) this.#turns.delete(key);
      return failed;
    };
    const settled: Promise<EngineUnavailable | undefined> = run.then(
      () => release(undefined),
      (error: unknown) => release(isEngineUnavailable(error) ? error : undefined),
    );
    this.#turns.set(key, settled);
    return run;
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

  /** A connection made `id` its own session: its store is this process's to clear (`clearSession`), not the engine's. */
  openOwnSession(id: string): void {
    this.#own.set(id, false);
  }

  /**
   * How a write to session `id`'s store goes: a session of the engine's is named to it (kept only while it lives,
   * cleared by it as it ends); one of a connection's own is marked written, for its connection to clear as it ends
   * (marked before the write is sent: an end racing it clears after it). A closed one is no session of the
   * engine's, which refuses the write.
   */
  sessionWrite(id: string, options: { readonly ttlMs?: number; readonly ifVersion?: number }): RecordWriteOptions {
    if (!this.#own.has(id)) return { ...options, session: id };
    this.#own.set(id, true);
    return options;
  }

  /** A connection's own session ended: its records are deleted when it had any (failures are logged). */
  clearSession(id: string): void {
    const written = this.#own.get(id);
    this.#own.delete(id);
    if (written !== true || !keepsRecords(this.#engine())) return;
    const failed = (error: unknown) =>
      this.#log({
        level: "warning",
        message: `the store could not clear the records of ended session ${id}: ${String(error)}`,
        error,
        method: "(store)",
      });
    void attempt(
      () => andThen(this.records(), (store) => andThen(store.clearRecords(storeScopePrefix("x", id)), () => {})),
      failed,
    );
  }
}
