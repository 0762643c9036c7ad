import {
  checkText,
  EngineUnavailable,
  RECORD_BOUNDS,
  type RecordStore,
  type RecordWriteOptions,
  STORE_KEY_CHARS,
  type StoredRecord,
} from "../engine/engine.js";
import { utf8Length } from "../engine/session-bounds.js";
import { compileSchema } from "../schema/adapters.js";
import type { AnySchema, Infer } from "../schema/schema-adapter.js";
import { isPromiseLike, type MaybePromise } from "../wire/maybe.js";
import { fromBase64Url, toBase64Url } from "../wire/seal.js";
import type { StoreChange, StoreHub, StoreWatch } from "./store-hub.js";
import { decodeValue, encodeValue, type StoreValue } from "./store-json.js";

export type { StoreChange, StoreWatch } from "./store-hub.js";
export type { StoreValue } from "./store-json.js";

/** One page of a store's list: its items in key order, and the cursor of the next page when there may be one. */
export interface StorePage<T> {
  readonly items: { readonly key: string; readonly value: T }[];
  readonly nextCursor?: string;
}

/**
 * What `list` takes: the keys under `prefix`, from `cursor` (a page's `nextCursor`), at most `limit` (default 100);
 * a page also ends after the value that brings its values to 4 MiB (`RECORD_BOUNDS.listBytes`), with a `nextCursor`.
 */
export interface StoreListOptions {
  readonly prefix?: string;
  readonly cursor?: string;
  /** 1 to 1000; default 100. */
  readonly limit?: number;
}

/**
 * A server's own data, kept by its engine (in memory by default, in Redis with `@toolsmith/redis`): JSON values
 * under string keys, in one scope (the whole server, one user, one session). Reads with a `schema` (any schema
 * library Toolsmith takes) check what they find: a value that no longer fits is logged and read as absent, never
 * handed on as if it fitted. An engine that cannot be reached throws `EngineUnavailable` (a 503 with `Retry-After`
 * over HTTP, as the engine's other faults).
 * @example
 * ```ts source="examples/store.ts#Store"
 * server.tool({
 *   name: "add_note",
 *   description: "Keep a note",
 *   input: { text: z.string() },
 *   handler: async ({ text }, ctx) => {
 *     const count = await ctx.store.update("notes:count", (n: number | undefined) => (n ?? 0) + 1);
 *     await ctx.store.set(`notes:${String(count).padStart(8, "0")}`, { text });
 *     return `note ${count} kept`;
 *   },
 * });
 * ```
 */
export interface Store {
  /** The value under `key`, else undefined (also when it does not fit `schema`: logged). */
  get(key: string): Promise<StoreValue | undefined>;
  get<S extends AnySchema>(key: string, schema: S): Promise<Infer<S> | undefined>;
  /** Keep `value` (JSON, at most 64 levels deep and 1 MiB as JSON) under `key`, for good or for `ttlMs`. */
  set(key: string, value: unknown, options?: { readonly ttlMs?: number }): Promise<void>;
  /** Delete the value under `key`: whether there was one. */
  delete(key: string): Promise<boolean>;
  /**
   * Change the value under `key` atomically, across processes: `change` gets the value there (undefined when none,
   * or when it does not fit `schema`) and gives the new one (undefined: delete it); when another writer got there
   * first, it runs again on what that one wrote (at most 64 times, then `EngineUnavailable`). The new value. In a
   * handler it starts from what the same request last read or wrote there, if anything, instead of reading again.
   * Updates of one key in one process run one after another (so `change` must not await an update of its own key).
   */
  update<S extends AnySchema>(
    key: string,
    change: (old: Infer<S> | undefined) => MaybePromise<Infer<S> | undefined>,
    options: { readonly schema: S; readonly ttlMs?: number },
  ): Promise<Infer<S> | undefined>;
  update<T = StoreValue>(
    key: string,
    change: (old: T | undefined) => MaybePromise<T | undefined>,
    options?: { readonly ttlMs?: number },
  ): Promise<T | undefined>;
  /** The values under `prefix`, in key order (code point order), one page at a time; what misfits `schema` is skipped. */
  list(options?: StoreListOptions): Promise<StorePage<StoreValue>>;
  list<S extends AnySchema>(options: StoreListOptions & { readonly schema: S }): Promise<StorePage<Infer<S>>>;
  /**
   * Hear each change this process makes to `key` (or every key under `{ prefix }`) in this scope, through any store
   * of this server: after the write, with the new value (undefined when deleted). What stops it.
   */
  watch(watched: StoreWatch, listener: (change: StoreChange) => void): () => void;
}

/** How often `update` tries before giving up to racing writers. */
export const UPDATE_TRIES = 64;

const DEFAULT_LIMIT = 100;

function checkKey(name: string, key: string): void {
  checkText(name, key);
  if (key.length > STORE_KEY_CHARS) {
    throw new RangeError(`${name} is ${key.length} characters long, more than the ${STORE_KEY_CHARS} allowed`);
  }
}

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

function cursorOf(key: string): string {
  return toBase64Url(encoder.encode(key));
}

function keyOfCursor(cursor: string): string {
  const bytes = typeof cursor === "string" ? fromBase64Url(cursor) : undefined;
  let key: string | undefined;
  try {
    key = bytes === undefined ? undefined : decoder.decode(bytes);
  } catch {
    key = undefined;
  }
  if (key === undefined || key.length > STORE_KEY_CHARS) throw new TypeError("cursor is not one this store gave");
  return key;
}

/**
 * What one request's stores last saw of a few records (by full key: scope and key), null for none: where its
 * `update` starts instead of reading again (`swapRecord` checks it is still so; when it is not, the record found
 * there is the next start). Only ever one request's: never shared, so never another caller's.
 */
export type StoreHints = Map<string, StoredRecord | null>;

/** How many records a request's hints hold (the first seen go first); one no longer held is read again to update. */
export const STORE_HINTS = 8;

/**
 * A store over one scope: every key the author names lives under `scope` (`d:s:`, `d:u:<subject>:`, …); `session`:
 * the scope is that session's (`d:x:<id>:`), whose writes the hub completes (`sessionWrite`).
 */
export class ScopedStore implements Store {
  readonly #hub: StoreHub;
  readonly #scope: string;
  readonly #hints: StoreHints | undefined;
  readonly #session: string | undefined;

  /** `hints`: the request's own (none outside a request: each update reads first). */
  constructor(hub: StoreHub, scope: string, hints?: StoreHints, session?: string) {
    this.#hub = hub;
    this.#scope = scope;
    this.#hints = hints;
    this.#session = session;
  }

  // On the path of each get and update, what is ready now is not awaited (each await is a turn of the microtask
  // queue): the engine's records once started, a value read without a schema, a change that returns its value.

  async get(key: string, schema?: AnySchema): Promise<never> {
    checkKey("key", key);
    const ready = this.#hub.records();
    const records = isPromiseLike(ready) ? await ready : ready;
    const full = this.#scope + key;
    const found = await records.readRecord(full);
    this.#saw(full, found);
    if (found === undefined) return undefined as never;
    const value = this.#read(key, found.value, schema);
    return (isPromiseLike(value) ? await value : value) as never;
  }

  async set(key: string, value: unknown, options?: { readonly ttlMs?: number }): Promise<void> {
    checkKey("key", key);
    const text = encodeValue(value);
    const records = await this.#hub.records();
    const full = this.#scope + key;
    const version = await records.writeRecord(full, text, this.#writing(ttlOf(options)));
    this.#saw(full, { value: text, version: version as number });
    this.#hub.changed(this.#scope, key, value);
  }

  async delete(key: string): Promise<boolean> {
    checkKey("key", key);
    const records = await this.#hub.records();
    const full = this.#scope + key;
    const deleted = await records.deleteRecord(full);
    this.#saw(full, undefined);
    if (deleted) this.#hub.changed(this.#scope, key, undefined);
    return deleted;
  }

  async update(
    key: string,
    change: (old: never) => MaybePromise<unknown>,
    options?: { readonly schema?: AnySchema; readonly ttlMs?: number },
  ): Promise<never> {
    checkKey("key", key);
    if (typeof change !== "function") throw new TypeError("update takes a change function: (old) => new value");
    const full = this.#scope + key;
    return await this.#hub.inTurn(full, () => this.#update(key, full, change, options));
  }

  async #update(
    key: string,
    full: string,
    change: (old: never) => MaybePromise<unknown>,
    options: { readonly schema?: AnySchema; readonly ttlMs?: number } | undefined,
  ): Promise<never> {
    const ready = this.#hub.records();
    const records = isPromiseLike(ready) ? await ready : ready;
    // Where to start: what this request last saw there (a hint, checked by the swap), else what is there now.
    const hint = this.#hints?.get(full);
    let fresh = hint === undefined;
    let found = fresh ? await records.readRecord(full) : (hint ?? undefined);
    for (let tries = 0; tries < UPDATE_TRIES; tries++) {
      const read = found === undefined ? undefined : this.#read(key, found.value, options?.schema);
      const old = isPromiseLike(read) ? await read : read;
      const made = change(old as never);
      const next = isPromiseLike(made) ? await made : made;
      // Nothing there, and nothing to write: done, when what was read is what is there now.
      if (next === undefined && found === undefined && fresh) {
        this.#saw(full, undefined);
        return undefined as never;
      }
      const text = next === undefined ? undefined : encodeValue(next);
      const outcome = await records.swapRecord(full, found, text, this.#writing(ttlOf(options)));
      if (typeof outcome === "number") {
        this.#saw(full, text === undefined ? undefined : { value: text, version: outcome });
        if (next !== undefined || found !== undefined) this.#hub.changed(this.#scope, key, next);
        return next as never;
      }
      // Lost to a write since the hint: `outcome` is what is there now, to try again from at once. Lost on what was
      // just read: another process is writing now, so wait a moment, more each time, then read again (what the loss
      // answered is older by then).
      if (fresh) {
        await backOff(tries + 1);
        found = await records.readRecord(full);
      } else {
        found = outcome;
        fresh = true;
      }
    }
    throw new EngineUnavailable(
      `store update of "${key}" lost to other writers ${UPDATE_TRIES} times in a row; try again shortly`,
    );
  }

  async list(options: StoreListOptions & { readonly schema?: AnySchema } = {}): Promise<StorePage<never>> {
    const prefix = options.prefix ?? "";
    checkKey("prefix", prefix);
    const limit = options.limit ?? DEFAULT_LIMIT;
    if (!Number.isSafeInteger(limit) || limit < 1 || limit > RECORD_BOUNDS.listLimit) {
      throw new RangeError(`limit must be a whole number from 1 to ${RECORD_BOUNDS.listLimit}, not ${limit}`);
    }
    const after = options.cursor === undefined ? undefined : this.#scope + keyOfCursor(options.cursor);
    const records: RecordStore = await this.#hub.records();
    // One more than asked tells whether another page follows.
    const asked = Math.min(limit + 1, RECORD_BOUNDS.listLimit);
    const listed = await records.listRecords(this.#scope + prefix, { limit: asked, ...(after ? { after } : {}) });
    const page = listed.slice(0, limit);
    const items: { key: string; value: never }[] = [];
    for (const record of page) {
      const key = record.key.slice(this.#scope.length);
      const value = await this.#read(key, record.value, options.schema);
      if (value !== undefined) items.push({ key, value: value as never });
    }
    const last = page.at(-1);
    // A page the engine cut at RECORD_BOUNDS.listBytes of values goes on after its last item.
    const more =
      listed.length > limit ||
      (listed.length === RECORD_BOUNDS.listLimit && limit === asked) ||
      valueBytes(listed) >= RECORD_BOUNDS.listBytes;
    return more && last !== undefined ? { items, nextCursor: cursorOf(last.key.slice(this.#scope.length)) } : { items };
  }

  watch(watched: StoreWatch, listener: (change: StoreChange) => void): () => void {
    return this.#hub.watch(this.#scope, watched, listener);
  }

  #writing<O extends { readonly ttlMs?: number; readonly ifVersion?: number }>(options: O): O | RecordWriteOptions {
    return this.#session === undefined ? options : this.#hub.sessionWrite(this.#session, options);
  }

  // This request saw `record` (undefined: none) under `full`: kept for STORE_HINTS keys, the first seen dropped past it.
  #saw(full: string, record: StoredRecord | undefined): void {
    const hints = this.#hints;
    if (hints === undefined) return;
    if (hints.size >= STORE_HINTS && !hints.has(full)) hints.delete(hints.keys().next().value as string);
    hints.set(full, record ?? null);
  }

  // The value a record holds, checked by `schema`: undefined (logged) when it is not JSON or does not fit. A promise
  // only with a schema.
  #read(key: string, text: string, schema: AnySchema | undefined): MaybePromise<unknown> {
    const decoded = decodeValue(text);
    if ("why" in decoded) return this.#misfit(key, decoded.why);
    if (schema === undefined) return decoded.value;
    return this.#checked(key, decoded.value, schema);
  }

  async #checked(key: string, value: unknown, schema: AnySchema): Promise<unknown> {
    const checked = await compileSchema(schema, "output", `store value "${key}"`).validate(value);
    if (checked.ok) return checked.value;
    const issues = checked.issues.map((issue) => `${issue.path || "(value)"}: ${issue.message}`).join("; ");
    return this.#misfit(key, `it does not fit its schema (${issues})`);
  }

  #misfit(key: string, why: string): undefined {
    this.#hub.log({ level: "warning", message: `store value "${key}" read as absent: ${why}`, method: "(store)" });
    return undefined;
  }
}

// A random wait of up to 2^tries ms (at most 64 ms): processes that lost a race to one key spread out.
function backOff(tries: number): Promise<void> {
  const ms = Math.random() * Math.min(2 ** tries, 64);
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function valueBytes(records: readonly { readonly value: string }[]): number {
  let bytes = 0;
  for (const record of records) bytes += utf8Length(record.value);
  return bytes;
}

const NO_TTL: { ttlMs?: number } = Object.freeze({});

function ttlOf(options: { readonly ttlMs?: number } | undefined): { ttlMs?: number } {
  return options?.ttlMs === undefined ? NO_TTL : { ttlMs: options.ttlMs };
}
