import { KEY_VALUE_BOUNDS, type KeyValueStore } from "../engine/key-value-store.js";
import { utf8Length } from "../engine/session-bounds.js";
import { isPlainObject } from "../wire/json-rpc.js";
import type { MaybePromise } from "../wire/maybe.js";
import { ENCRYPTED_OVERHEAD_BYTES, type Sealer } from "../wire/seal.js";
import { keptJson } from "./kept-json.js";
import type { LogEntry } from "./logger.js";

// `ctx.keep`: what a 2026-07-28 handler computed before asking travels to the retry that brings the answer, encrypted
// (it may hold a secret: the client reads requestState, Redis holds what it is given). A small value rides in the
// sealed requestState; a larger one waits in the engine's key-value store under a keyed MAC of its JSON, which the
// sealed state holds, so a value altered, swapped or encrypted with another key there is never used (it is computed
// again).

// The label of the keys kept values are encrypted and named with (derived from the state key, as the seal's is not).
const PURPOSE = "toolsmith.keep.v1";
// The engine's largest value is base64url of a value's bytes plus IV and tag: 4 characters a 3 bytes.
const LARGEST_VALUE = (KEY_VALUE_BOUNDS.valueBytes / 4) * 3 - ENCRYPTED_OVERHEAD_BYTES;

/** The bounds of `ctx.keep`, per request (every round of it): one more name, or a larger value, is a RangeError. */
export const KEEP_BOUNDS = {
  /** The longest name, in UTF-16 code units. */
  nameChars: 128,
  /** How many names one request keeps. */
  values: 16,
  /**
   * The largest value, in UTF-8 bytes of its JSON: 49,124, the most whose encryption (IV and tag, 28 bytes more) is
   * at most an engine's largest value (65,536) in base64url.
   */
  valueBytes: LARGEST_VALUE,
  /** The JSON of every value one request keeps, together, in UTF-8 bytes. */
  requestBytes: 262_144,
  /**
   * The JSON carried inside the sealed requestState, together, in UTF-8 bytes; the rest waits in the engine. Encrypted
   * then sealed, it is base64url twice: 3,072 bytes make a requestState of about 5.5 KB, as 4,096 did in clear.
   */
  inlineBytes: 3072,
} as const;

/** A kept value as a sealed requestState carries it: encrypted inline (`c`), or by the name of the engine's copy (`d`). */
export interface CarriedValue {
  /** Its name. */
  readonly n: string;
  /** The UTF-8 bytes of its JSON. */
  readonly b: number;
  /** Its JSON, encrypted (`Sealer.encrypt`). */
  readonly c?: string;
  /** The HMAC of its JSON (`Sealer.mac`), base64url: it waits in the engine under `keep:<d>`, encrypted bound to it. */
  readonly d?: string;
}

/** Where a request keeps its larger values, and tells of one it could not use: the server (`ServerCore`). */
export interface KeepHost {
  readonly engine: KeyValueStore;
  /** Encrypts and names kept values, with keys derived from the server's state key. */
  readonly sealer: Sealer;
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
  return (typeof value.c === "string") !== (typeof value.d === "string");
}

// By its MAC alone: a round replayed (its state sent again and again) writes the same key again, never one more copy
// a replay; two requests that kept the same JSON share its one copy, which is that JSON whoever wrote it. Keyed, so
// a guessed value cannot be confirmed from the key's name without the state key.
function engineKey(mac: string): string {
  return `keep:${mac}`;
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
    const text = await this.#load(carried);
    return text === undefined ? undefined : { value: JSON.parse(text), text, bytes: carried.b };
  }

  // A carried value's JSON, decrypted (from the state, or the engine's copy when it is the one kept); else undefined,
  // and the server log says why (never what: the value is not logged).
  async #load(carried: CarriedValue): Promise<string | undefined> {
    const from = this.#from as Carried;
    const { sealer } = from.host;
    const inline = typeof carried.c === "string";
    const found = inline ? carried.c : await (await valuesOf(from.host)).getValue(engineKey(carried.d as string));
    // The engine's copy opens only under its own key's name (its HMAC): one made for another value does not.
    const text = found === undefined ? undefined : await sealer.decrypt(PURPOSE, found, carried.d);
    const fits = text !== undefined && utf8Length(text) === carried.b;
    if (!fits) {
      const where = inline ? "requestState's value" : "engine's value";
      from.host.log({
        level: found === undefined ? "debug" : "warning",
        message:
          found === undefined
            ? `ctx.keep("${carried.n}"): the value kept in round ${from.from} is no longer in the engine (expired, or kept by another process's memory engine): computed again`
            : `ctx.keep("${carried.n}"): the ${where} for round ${from.from} is not the one kept (altered, swapped or encrypted with another key): not used, computed again`,
        method: from.method,
        ...(from.method === "tools/call" ? { tool: from.target } : {}),
      });
    }
    return fits ? text : undefined;
  }

  /**
   * What the next requestState carries, a round being issued for `ttlMs`: every value kept so far (this run's, else
   * an earlier round's), encrypted, the larger ones written to the engine (again: their lapse moves to the new
   * round's).
   */
  async carry(host: KeepHost, ttlMs: number): Promise<CarriedValue[]> {
    const names = new Set([...(this.#carried?.keys() ?? []), ...this.#held.keys()]);
    const texts = await Promise.all(
      [...names].map(async (name): Promise<[string, string, number] | undefined> => {
        const held = this.#held.get(name);
        if (held !== undefined) return [name, held.text, held.bytes];
        const carried = this.#carried?.get(name) as CarriedValue;
        const text = await this.#load(carried);
        return text === undefined ? undefined : [name, text, carried.b];
      }),
    );
    const { sealer } = host;
    let inline = KEEP_BOUNDS.inlineBytes;
    const values: Promise<CarriedValue>[] = [];
    for (const found of texts) {
      if (found === undefined) continue;
      const [n, text, b] = found;
      if (b <= inline) {
        inline -= b;
        values.push(sealer.encrypt(PURPOSE, text).then((c) => ({ n, b, c })));
        continue;
      }
      values.push(
        Promise.all([sealer.mac(PURPOSE, text), valuesOf(host)]).then(async ([d, engine]) => {
          await engine.setValue(engineKey(d), await sealer.encrypt(PURPOSE, text, d), { ttlMs });
          return { n, b, d };
        }),
      );
    }
    return Promise.all(values);
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
