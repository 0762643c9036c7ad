import { RECORD_BOUNDS } from "../engine/engine.js";
import { utf8Length } from "../engine/session-bounds.js";
import { MAX_DEPTH, tooDeep, tooDeepText } from "../wire/depth.js";

// What a store's value may be: JSON, bounded in depth and bytes, kept exactly (a `__proto__` key is a key).

/** A value the store keeps: JSON (null, booleans, finite numbers, strings, arrays, plain objects). */
export type StoreValue =
  | null
  | boolean
  | number
  | string
  | readonly StoreValue[]
  | { readonly [key: string]: StoreValue };

/** The bounds of a store's value: nesting (arrays and objects) and size of its JSON text (UTF-8). */
export const STORE_VALUE_BOUNDS = { depth: MAX_DEPTH, bytes: RECORD_BOUNDS.valueBytes } as const;

function where(path: readonly (string | number)[]): string {
  return path.length === 0 ? "the value" : `the value at ${path.map((step) => JSON.stringify(step)).join(".")}`;
}

// A TypeError naming the first part of `value` JSON cannot keep as it is; a RangeError past the depth.
function checkJson(value: unknown, path: (string | number)[], depth: number): void {
  switch (typeof value) {
    case "string":
    case "boolean":
      return;
    case "number":
      if (!Number.isFinite(value)) throw new TypeError(`${where(path)} is ${value}, which JSON cannot keep`);
      return;
    case "object": {
      if (value === null) return;
      if (depth > STORE_VALUE_BOUNDS.depth) throw new RangeError(tooDeepText("a stored value", path));
      if (Array.isArray(value)) {
        for (let index = 0; index < value.length; index++) {
          path.push(index);
          checkJson(value[index], path, depth + 1);
          path.pop();
        }
        return;
      }
      const proto: unknown = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) {
        const kind = (value as { constructor?: { name?: unknown } }).constructor?.name;
        throw new TypeError(
          `${where(path)} is a ${typeof kind === "string" ? kind : "non-plain object"}: the store keeps plain objects, arrays and JSON values (convert it first, e.g. a Date to its toISOString())`,
        );
      }
      for (const key of Object.keys(value)) {
        path.push(key);
        checkJson((value as Record<string, unknown>)[key], path, depth + 1);
        path.pop();
      }
      return;
    }
    default:
      throw new TypeError(
        `${where(path)} is ${typeof value === "undefined" ? "undefined" : `a ${typeof value}`}, which JSON cannot keep`,
      );
  }
}

/**
 * `value` as the JSON text the engine keeps: a TypeError for what JSON cannot keep as it is (undefined, a function,
 * a bigint, NaN, a Date or other class instance), a RangeError past `STORE_VALUE_BOUNDS` (depth, bytes).
 */
export function encodeValue(value: unknown): string {
  checkJson(value, [], 1);
  const text = JSON.stringify(value);
  const bytes = text.length * 3 <= STORE_VALUE_BOUNDS.bytes ? 0 : utf8Length(text);
  if (bytes > STORE_VALUE_BOUNDS.bytes) {
    throw new RangeError(
      `the value is ${bytes} bytes as JSON (UTF-8), more than the ${STORE_VALUE_BOUNDS.bytes} allowed`,
    );
  }
  return text;
}

/** The value a kept JSON text holds; undefined (with why) when it is not JSON within the bounds. */
export function decodeValue(text: string): { readonly value: StoreValue } | { readonly why: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // Not the parser's message: it quotes the text, which may be anything (a token) and goes to the log.
    return { why: "it is not JSON" };
  }
  const path = tooDeep(value, STORE_VALUE_BOUNDS.depth);
  if (path !== undefined) return { why: tooDeepText("it", path) };
  return { value: value as StoreValue };
}
