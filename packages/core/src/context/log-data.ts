import { MAX_DEPTH } from "../wire/depth.js";

/**
 * What a `ctx.log` call's data becomes on the wire, as a console or pino user expects it printed: an Error as its
 * name and message (its stack stays on the server), an object met again inside itself as "[Circular]", a BigInt as
 * its digits, a Map as an object and a Set as an array, past MAX_DEPTH levels "[Deep]"; what JSON drops (functions,
 * symbols, undefined) is dropped. Nothing here throws: a log line never fails the handler that wrote it.
 */
export function loggable(value: unknown): unknown {
  return typeof value === "object" && value !== null ? walk(value, [], 1) : primitive(value);
}

function primitive(value: unknown): unknown {
  if (typeof value === "bigint") return value.toString();
  if (typeof value === "number") return Number.isFinite(value) ? value : String(value);
  return typeof value === "function" || typeof value === "symbol" ? undefined : value;
}

function walk(value: object, ancestors: object[], depth: number): unknown {
  if (ancestors.includes(value)) return "[Circular]";
  if (depth > MAX_DEPTH) return "[Deep]";
  const inner = (item: unknown): unknown =>
    typeof item === "object" && item !== null ? walk(item, [...ancestors, value], depth + 1) : primitive(item);
  try {
    if (value instanceof Error) {
      const shown: Record<string, unknown> = { name: value.name, message: value.message };
      for (const [key, item] of Object.entries(value)) if (key !== "stack") setDefined(shown, key, inner(item));
      return shown;
    }
    const toJSON = (value as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === "function") return inner(toJSON.call(value));
    if (Array.isArray(value)) return value.map((item) => inner(item) ?? null);
    if (value instanceof Set) return [...value].map((item) => inner(item) ?? null);
    const entries = value instanceof Map ? [...value].map(([key, item]) => [String(key), item]) : Object.entries(value);
    const shown: Record<string, unknown> = {};
    for (const [key, item] of entries) setDefined(shown, key as string, inner(item));
    return shown;
  } catch {
    // A getter or toJSON that throws: the value is shown as what it is, not as a failed log.
    return `[${Object.prototype.toString.call(value).slice(8, -1)}]`;
  }
}

function setDefined(target: Record<string, unknown>, key: string, value: unknown): void {
  if (value !== undefined) target[key] = value;
}
