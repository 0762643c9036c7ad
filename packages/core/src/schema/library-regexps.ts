import type { FlagsBySource } from "./pattern-precheck.js";

// A JSON Schema lists a library's pattern without its RegExp's flags (`/^abc$/i` as "^abc$"): the flags are read from
// the library's own schema, so that RE2 checks what the library will (a case-insensitive pattern stays so).

// A schema walked past this many objects is left unread (schemas are bounded far below it elsewhere).
const MAX_VISITS = 100_000;

type Bag = Map<string, Set<string>>;

/** The RegExps in a library's schema (zod v4 and v3, ArkType, Valibot …): each source with the flags it is used with. */
export function regExpsOf(schema: unknown): FlagsBySource {
  const found: Bag = new Map();
  const seen = new Set<object>();
  const stack: unknown[] = [schema];
  while (stack.length > 0 && seen.size < MAX_VISITS) {
    const node = stack.pop();
    if (node instanceof RegExp) add(found, node.source, node.flags);
    else if ((typeof node === "object" || typeof node === "function") && node !== null && !seen.has(node)) {
      seen.add(node);
      stack.push(...childrenOf(node, found));
    }
  }
  return found;
}

// Only the flags that change what matches: `g` and `d` do not (the libraries reset lastIndex), `u` is assumed.
function add(found: Bag, source: string, flags: string): void {
  const kept = [...flags].filter((flag) => "imsvy".includes(flag)).join("");
  const set = found.get(source) ?? new Set<string>();
  found.set(source, set.add(kept));
}

function childrenOf(object: object, found: Bag): unknown[] {
  const node = object as Record<string, unknown>;
  // ArkType: a type is a function whose node lists every node it refers to, patterns with their rule and flags.
  const internal = typeof object === "function" ? (node.internal as { references?: unknown } | undefined) : undefined;
  if (internal && Array.isArray(internal.references)) {
    for (const ref of internal.references as { kind?: string; rule?: string; flags?: string }[]) {
      if (ref.kind === "pattern" && typeof ref.rule === "string") add(found, ref.rule, ref.flags ?? "");
    }
    return [];
  }
  if (typeof object === "function") return [];
  // zod v4: its definition, and a lazy schema's target.
  const zod = node._zod as { def?: { type?: string }; innerType?: unknown } | undefined;
  if (zod && typeof zod === "object") return zod.def?.type === "lazy" ? [zod.def, zod.innerType] : [zod.def];
  // zod v3: its definition, an object's shape and a lazy schema's target are functions there.
  const def = node._def as Record<string, unknown> | undefined;
  if (def && typeof def === "object") {
    const made = [def.shape, def.getter].filter((make) => typeof make === "function") as (() => unknown)[];
    return [def, ...made.map((make) => make())];
  }
  // Anything else plain (Valibot's schemas, their pipes and their actions' `requirement`).
  if (Array.isArray(node)) return node;
  const proto = Object.getPrototypeOf(node);
  return proto === Object.prototype || proto === null ? Object.values(node) : [];
}
