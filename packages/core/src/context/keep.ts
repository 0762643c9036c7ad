import { KEY_VALUE_BOUNDS, type KeyValueStore } from "../engine/key-value-store.js";
import { utf8Length } from "../engine/session-bounds.js";
import { isPlainObject } from "../wire/json-rpc.js";
import type { MaybePromise } from "../wire/maybe.js";
import { digest } from "../wire/seal.js";
import { keptJson } from "./kept-json.js";
import type { LogEntry } from "./logger.js";

// `ctx.keep`: what a 2026-07-28 handler computed before asking travels to the retry that brings the answer. A small
// value rides in the sealed requestState; a larger one waits in the engine's key-value store under its digest, which
// the sealed state holds, so a value altered or swapped there is never used (it is computed again).

/** The bounds of `ctx.keep`, per request (every round of it): one more name, or a larger value, is a RangeError. */
export const KEEP_BOUNDS = {
  /** The longest name, in UTF-16 code units. */
  nameChars: 128,
  /** How many names one request keeps. */
  values: 16,
  /** The largest value, in UTF-8 bytes of its JSON (an engine's largest value). */
  valueBytes: KEY_VALUE_BOUNDS.valueBytes,
  /** The JSON of every value one request keeps, together, in UTF-8 bytes. */
  requestBytes: 262_144,
  /** The JSON carried inside the sealed requestState, together, in UTF-8 bytes; the rest waits in the engine. */
  inlineBytes: 4096,
} as const;

/** A kept value as a sealed requestState carries it: inline (`v`), or by the digest of the engine's copy (`d`). */
export interface CarriedValue {
  /** Its name. */
  readonly n: string;
  /** The UTF-8 bytes of its JSON. */
  readonly b: number;
  readonly v?: unknown;
  /** The SHA-256 of its JSON, base64url: it waits in the engine under `keep:<d>`. */
  readonly d?: string;
}

/** Where a request keeps its larger values, and tells of one it could not use: the server (`ServerCore`). */
export interface KeepHost {
  readonly engine: KeyValueStore;
  /** Starts the engine once (a 2026-07-28 request may be a fresh process's first); later calls are free. */
  startEngine(): MaybePromise<void>;
  log(entry: LogEntry): void;
}

// The engine's key-value store, started.
async function valuesOf(host: KeepHost): Promise<KeyValueStore> {
  await host.startEngine();
  return host.engine;
}

/** What a retry's sealed state carried: the values kept in earlier rounds. */
export interface Carried {
  /** The id of the round whose state carried them (for the log). */
  readonly from: string;
  readonly values: readonly CarriedValue[];
  readonly host: KeepHost;
  /** What the retry serves (for the log). */
  readonly method: string;
  readonly target: string;
}

interface Held {
  readonly value: unknown;
  readonly text: string;
  readonly bytes: number;
}

/** Whether `value` is a well-formed carried value (the seal vouches for it; its shape is checked all the same). */
export function isCarriedValue(value: unknown): value is CarriedValue {
  if (!isPlainObject(value) || typeof value.n !== "string" || !Number.isSafeInteger(value.b)) return false;
  return Object.hasOwn(value, "v") !== (typeof value.d === "string");
}

// By its digest alone: a round replayed (its state sent again and again) writes the same key again, never one more
// copy a replay; two requests that kept the same JSON share its one copy, which is that JSON whoever wrote it.
function engineKey(digested: string): string {
  return `keep:${digested}`;
}

function refused(name: string, why: string): Promise<never> {
  return Promise.reject(new RangeError(`ctx.keep("${name}"): ${why}`));
}

/** One request's kept values (in a 2026-07-28 round, across its rounds). */
export class Keeper {
  readonly #carried: Map<string, CarriedValue> | undefined;
  readonly #from: Carried | undefined;
  // This run's: settled values by name, and those still being computed or loaded.
  readonly #held = new Map<string, Held>();
  readonly #pending = new Map<string, Promise<Held>>();
  readonly #bytes = new Map<string, number>();
  // Every name this request keeps or is computing: what KEEP_BOUNDS.values counts.
  readonly #names = new Set<string>();

  constructor(carried?: Carried) {
    this.#from = carried;
    if (carried === undefined || carried.values.length === 0) return;
    this.#carried = new Map(carried.values.map((value) => [value.n, value]));
    for (const value of carried.values) {
      this.#bytes.set(value.n, value.b);
      this.#names.add(value.n);
    }
  }

  /** The value kept under `name` in this request, else `compute`'s, kept from now on. */
  keep<T>(name: string, compute: () => MaybePromise<T>): Promise<T> {
    if (typeof name !== "string" || name.length === 0 || name.length > KEEP_BOUNDS.nameChars) {
      return Promise.reject(
        new TypeError(`ctx.keep(name): name must be a string of 1 to ${KEEP_BOUNDS.nameChars} characters`),
      );
    }
    if (typeof compute !== "function") {
      return Promise.reject(new TypeError(`ctx.keep("${name}", compute): compute must be a function`));
    }
    const held = this.#held.get(name);
    if (held !== undefined) return Promise.resolve(held.value as T);
    let pending = this.#pending.get(name);
    if (pending === undefined) {
      if (!this.#names.has(name) && this.#names.size >= KEEP_BOUNDS.values) {
        return refused(name, `a request keeps at most ${KEEP_BOUNDS.values} names (KEEP_BOUNDS.values)`);
      }
      this.#names.add(name);
      pending = this.#hold(name, compute);
      this.#pending.set(name, pending);
    }
    return pending.then((kept) => kept.value as T);
  }

  async #hold(name: string, compute: () => MaybePromise<unknown>): Promise<Held> {
    try {
      const held = (await this.#resume(name)) ?? this.#fits(name, await compute());
      this.#held.set(name, held);
      return held;
    } catch (error) {
      // Nothing kept: the name is free again, and a later keep of it computes afresh.
      if (!this.#bytes.has(name)) this.#names.delete(name);
      throw error;
    } finally {
      this.#pending.delete(name);
    }
  }

  // A fresh value, checked: JSON, within the bounds.
  #fits(name: string, value: unknown): Held {
    const text = keptJson(name, value);
    const bytes = utf8Length(text);
    if (bytes > KEEP_BOUNDS.valueBytes) {
      throw new RangeError(
        `ctx.keep("${name}"): the value is ${bytes} bytes of JSON, more than the ${KEEP_BOUNDS.valueBytes} one kept value may be (KEEP_BOUNDS.valueBytes): keep less, such as the id of what you stored elsewhere`,
      );
    }
    let total = bytes;
    for (const [other, size] of this.#bytes) if (other !== name) total += size;
    if (total > KEEP_BOUNDS.requestBytes) {
      throw new RangeError(
        `ctx.keep("${name}"): the values kept in this request would be ${total} bytes of JSON, more than the ${KEEP_BOUNDS.requestBytes} allowed (KEEP_BOUNDS.requestBytes)`,
      );
    }
    this.#bytes.set(name, bytes);
    return { value, text, bytes };
  }

  // The value an earlier round kept under `name`, when it is still there and is what was kept.
  async #resume(name: string): Promise<Held | undefined> {
    const carried = this.#carried?.get(name);
    if (carried === undefined) return undefined;
    if (Object.hasOwn(carried, "v")) return { value: carried.v, text: JSON.stringify(carried.v), bytes: carried.b };
    const text = await this.#load(carried);
    return text === undefined ? undefined : { value: JSON.parse(text), text, bytes: carried.b };
  }

  // The engine's copy of a carried value, when it matches its digest; else undefined, and the server log says why.
  async #load(carried: CarriedValue): Promise<string | undefined> {
    const from = this.#from as Carried;
    const text = await (await valuesOf(from.host)).getValue(engineKey(carried.d as string));
    const fits = text !== undefined && utf8Length(text) === carried.b && (await digest(text)) === carried.d;
    if (!fits) {
      from.host.log({
        level: text === undefined ? "debug" : "warning",
        message:
          text === undefined
            ? `ctx.keep("${carried.n}"): the value kept in round ${from.from} is no longer in the engine (expired, or kept by another process's memory engine): computed again`
            : `ctx.keep("${carried.n}"): the engine's value for round ${from.from} is not the one kept (altered or swapped): not used, computed again`,
        method: from.method,
        ...(from.method === "tools/call" ? { tool: from.target } : {}),
      });
    }
    return fits ? text : undefined;
  }

  /**
   * What the next requestState carries, a round being issued for `ttlMs`: every value kept so far (this run's, else
   * an earlier round's), the larger ones written to the engine (again: their lapse moves to the new round's).
   */
  async carry(host: KeepHost, ttlMs: number): Promise<CarriedValue[]> {
    const names = new Set([...(this.#carried?.keys() ?? []), ...this.#held.keys()]);
    const texts = await Promise.all(
      [...names].map(async (name): Promise<[string, string, number] | undefined> => {
        const held = this.#held.get(name);
        if (held !== undefined) return [name, held.text, held.bytes];
        const carried = this.#carried?.get(name) as CarriedValue;
        if (Object.hasOwn(carried, "v")) return [name, JSON.stringify(carried.v), carried.b];
        const text = await this.#load(carried);
        return text === undefined ? undefined : [name, text, carried.b];
      }),
    );
    let inline = KEEP_BOUNDS.inlineBytes;
    const values: CarriedValue[] = [];
    const writes: Promise<unknown>[] = [];
    for (const found of texts) {
      if (found === undefined) continue;
      const [n, text, b] = found;
      if (b <= inline) {
        inline -= b;
        values.push({ n, b, v: JSON.parse(text) });
        continue;
      }
      writes.push(
        digest(text).then(async (d) => {
          await (await valuesOf(host)).setValue(engineKey(d), text, { ttlMs });
          values.push({ n, b, d });
        }),
      );
    }
    await Promise.all(writes);
    return values;
  }
}

/** The keeper of a round, or of a context without rounds: made on first use. */
export function keeperOf(holder: { keeper: Keeper | undefined }): Keeper {
  holder.keeper ??= new Keeper();
  return holder.keeper;
}

/**
 * Whether progress `done` was reported in an earlier round of this request (at or below its mark: not to be sent
 * again); else it becomes the mark.
 */
export function reportedBefore(round: { reported: number | undefined }, done: number): boolean {
  if (round.reported !== undefined && done <= round.reported) return true;
  round.reported = done;
  return false;
}
