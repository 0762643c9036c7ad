import { MAX_DEPTH } from "../wire/depth.js";

// `ctx.keep` carries a value across processes as JSON: what would not come back equal is refused where it is kept,
// in every era, so a handler that works in one era works in the other.

function kindOf(value: unknown): string {
  if (value === undefined) return "undefined";
  if (typeof value === "number") return String(value);
  if (typeof value !== "object" || value === null) return `a ${typeof value}`;
  const made = Object.getPrototypeOf(value)?.constructor?.name;
  return typeof made === "string" && made !== "" ? `a ${made}` : "an object of another kind";
}

// The path to the first part of `value` that JSON would not bring back equal, and why; undefined when none.
function unfit(value: unknown, levels: number): { path: (string | number)[]; why: string } | undefined {
  switch (typeof value) {
    case "string":
    case "boolean":
      return undefined;
    case "number":
      return Number.isFinite(value) ? undefined : { path: [], why: `is ${kindOf(value)}` };
    case "object":
      break;
    default:
      return { path: [], why: `is ${kindOf(value)}` };
  }
  if (value === null) return undefined;
  if (levels === 0) return { path: [], why: `nests deeper than ${MAX_DEPTH} levels (or refers to itself)` };
  if (Object.getOwnPropertySymbols(value).length > 0) return { path: [], why: "has symbol keys" };
  if (Array.isArray(value)) {
    if (Object.getOwnPropertyNames(value).length !== value.length + 1) {
      return { path: [], why: "is an array with holes or named properties" };
    }
    for (let index = 0; index < value.length; index++) {
      const found = unfit(value[index], levels - 1);
      if (found) return { path: [index, ...found.path], why: found.why };
    }
    return undefined;
  }
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return { path: [], why: `is ${kindOf(value)}` };
  const keys = Object.keys(value);
  if (Object.getOwnPropertyNames(value).length !== keys.length) return { path: [], why: "has hidden properties" };
  if (typeof (value as { toJSON?: unknown }).toJSON === "function") return { path: [], why: "has a toJSON method" };
  for (const key of keys) {
    const found = unfit((value as Record<string, unknown>)[key], levels - 1);
    if (found) return { path: [key, ...found.path], why: found.why };
  }
  return undefined;
}

function pathText(path: readonly (string | number)[]): string {
  let text = "value";
  for (const part of path) {
    text += typeof part === "number" || !/^[A-Za-z_$][\w$]*$/.test(part) ? `[${JSON.stringify(part)}]` : `.${part}`;
  }
  return text;
}

/**
 * `value` as JSON text, for `ctx.keep(name)`: a TypeError naming the part of it that JSON would not bring back
 * equal (undefined, a function, NaN, a Date, a Map, a class instance, a cycle, …). -0 comes back as 0.
 */
export function keptJson(name: string, value: unknown): string {
  const found = unfit(value, MAX_DEPTH);
  if (found) {
    throw new TypeError(
      `ctx.keep("${name}"): ${pathText(found.path)} ${found.why}, and only JSON is kept (objects, arrays, strings, finite numbers, booleans, null): keep a plain copy of it`,
    );
  }
  return JSON.stringify(value);
}
