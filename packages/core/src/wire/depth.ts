// A client may send a value nested many thousands deep (JSON.parse takes it); a recursive walk over it would overflow
// the stack. Where the server walks a client's value all the way down, it walks at most MAX_DEPTH levels.

/** How deep (arrays and objects, the value itself being the first level) a client's value may nest where it is walked. */
export const MAX_DEPTH = 64;

// The path (innermost first) to an array or object past `levels`; `value` is an array or object.
function deeper(value: object, levels: number): (string | number)[] | undefined {
  if (levels === 0) return [];
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      const item: unknown = value[index];
      if (typeof item !== "object" || item === null) continue;
      const path = deeper(item, levels - 1);
      if (path) return path.concat(index);
    }
    return undefined;
  }
  for (const key of Object.keys(value)) {
    const item: unknown = (value as Record<string, unknown>)[key];
    if (typeof item !== "object" || item === null) continue;
    const path = deeper(item, levels - 1);
    if (path) return path.concat(key);
  }
  return undefined;
}

/** Where `value` nests past `levels` (default MAX_DEPTH): the path from it, or undefined when it does not. */
export function tooDeep(value: unknown, levels: number = MAX_DEPTH): (string | number)[] | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  return deeper(value, levels)?.reverse();
}

/** What a refusal says: `what` nests too deep, and under which of its own fields. */
export function tooDeepText(what: string, path: readonly (string | number)[]): string {
  const under = path.length > 0 ? ` (under ${JSON.stringify(String(path[0]))})` : "";
  return `${what} nests deeper than ${MAX_DEPTH} levels of arrays and objects${under}`;
}
