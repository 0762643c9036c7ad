import { isPlainObject } from "../wire/json-rpc.js";
import { SCHEMA_LISTS, SCHEMA_MAPS, SCHEMA_ONE } from "./keywords.js";

// Strict clients follow no `$ref` but recursion's: every reused sub-schema an adapter emitted as a reference is
// inlined, and only a sub-schema that contains itself stays in `$defs` (or is `#`, the whole schema). Inlined parts
// are shared objects, so a schema that doubles per level costs linear memory here; `nodes` says what it would list.

/** Where definitions live; reached only through references, so never walked in place, and never listed. */
const DEFINITIONS = new Set(["$defs", "definitions"]);
/** Keywords a reference's own value may override on the schema it inlines. */
const ANNOTATIONS = new Set(["title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly"]);

type Schema = Record<string, unknown> | boolean;

/** A JSON Schema with reused parts inlined, and how many schema nodes it lists (inlined parts counted each time). */
export interface Inlined {
  schema: Record<string, unknown>;
  nodes: number;
}

/** An error in the schema's references: what a DefinitionError reports. */
export class RefError extends Error {}

/** Each child schema of `node` (not inside `$defs`). */
function eachChild(node: Record<string, unknown>, visit: (child: unknown) => void): void {
  for (const key in node) {
    const value = node[key];
    if (SCHEMA_MAPS.has(key) && isPlainObject(value)) for (const name in value) visit(value[name]);
    else if ((SCHEMA_LISTS.has(key) || key === "items") && Array.isArray(value)) for (const one of value) visit(one);
    else if (SCHEMA_ONE.has(key)) visit(value);
  }
}

/**
 * A library's identifiers for a part (zod v4's `.meta({ $id })` …): never listed, since an inlined part would name two
 * resources alike, and a `$ref` under a nested `$id` would resolve against it (references here are the root's).
 */
const IDENTIFIERS = new Set(["$id", "$anchor", "$dynamicAnchor", "$recursiveAnchor", "$schema"]);

// Keys that make a schema more than a plain tree to list as it is.
const REFERENCES = new Set(["$ref", "$dynamicRef", "$recursiveRef", "$defs", "definitions", ...IDENTIFIERS]);

// One walk for the common case: the schema's size in nodes, or -1 when it holds a reference or definitions.
function plainSize(node: unknown, memo: Map<object, number>): number {
  if (!isPlainObject(node)) return 1;
  const known = memo.get(node);
  if (known !== undefined) return known;
  let count = 1;
  for (const key in node) {
    if (REFERENCES.has(key)) return -1;
    const value = node[key];
    let size = 0;
    if (SCHEMA_ONE.has(key) && !Array.isArray(value)) size = plainSize(value, memo);
    else if (SCHEMA_MAPS.has(key) && isPlainObject(value)) size = sizes(Object.values(value), memo);
    else if ((SCHEMA_LISTS.has(key) || key === "items") && Array.isArray(value)) size = sizes(value, memo);
    if (size < 0) return -1;
    count += size;
  }
  memo.set(node, count);
  return count;
}

// The same walk without a memo, for a schema registration proved small (a tree of at most `DEFERRED_NODES` nodes,
// each visited once anyway): no map to fill on the first `tools/list` of many tools.
function treeSize(node: unknown): number {
  if (!isPlainObject(node)) return 1;
  let count = 1;
  for (const key in node) {
    if (REFERENCES.has(key)) return -1;
    const value = node[key];
    let size = 0;
    if (SCHEMA_ONE.has(key) && !Array.isArray(value)) size = treeSize(value);
    else if (SCHEMA_MAPS.has(key) && isPlainObject(value)) {
      for (const name in value) {
        const one = treeSize(value[name]);
        if (one < 0) return -1;
        size += one;
      }
    } else if ((SCHEMA_LISTS.has(key) || key === "items") && Array.isArray(value)) {
      for (const item of value) {
        const one = treeSize(item);
        if (one < 0) return -1;
        size += one;
      }
    }
    if (size < 0) return -1;
    count += size;
  }
  return count;
}

function sizes(nodes: readonly unknown[], memo: Map<object, number>): number {
  let count = 0;
  for (const one of nodes) {
    const size = plainSize(one, memo);
    if (size < 0) return -1;
    count += size;
  }
  return count;
}

// A JSON Pointer fragment ("#", "#/properties/a~1b") resolved against the root.
function resolve(root: Record<string, unknown>, ref: string): Schema {
  if (!ref.startsWith("#") || (ref.length > 1 && !ref.startsWith("#/"))) {
    throw new RefError(`has a $ref ${JSON.stringify(ref)} that is not a local JSON Pointer ("#/…")`);
  }
  let node: unknown = root;
  const path = ref.length > 1 ? ref.slice(2).split("/") : [];
  for (const raw of path) {
    const segment = decodeURIComponent(raw).replace(/~1/g, "/").replace(/~0/g, "~");
    node = isPlainObject(node) || Array.isArray(node) ? (node as Record<string, unknown>)[segment] : undefined;
  }
  if (!isPlainObject(node) && typeof node !== "boolean") {
    throw new RefError(`has a $ref ${JSON.stringify(ref)} that points at no schema`);
  }
  return node;
}

/** `root` with every non-recursive reference inlined, recursive ones into `$defs`; and its size in schema nodes. */
export function inlineRefs(root: Record<string, unknown>, small = false): Inlined {
  const plain = small ? treeSize(root) : plainSize(root, new Map());
  if (plain >= 0) return { schema: root, nodes: plain };
  const targets = new Map<object, string>();
  const refsOf = (node: unknown, into: Set<object>): Set<object> => {
    if (!isPlainObject(node)) return into;
    for (const key of ["$dynamicRef", "$recursiveRef"]) {
      if (key in node) throw new RefError(`uses ${key}, which strict clients do not follow`);
    }
    if (typeof node.$ref === "string") {
      const target = resolve(root, node.$ref);
      if (typeof target === "object") {
        if (!targets.has(target)) targets.set(target, node.$ref);
        into.add(target);
      }
    } else if ("$ref" in node) throw new RefError("has a $ref that is not a string");
    eachChild(node, (child) => refsOf(child, into));
    return into;
  };
  // The references each target's expansion meets (its own sub-schemas', nested targets' included).
  const edges = new Map<object, Set<object>>([[root, refsOf(root, new Set())]]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const target of targets.keys()) {
      if (!edges.has(target)) {
        edges.set(target, refsOf(target, new Set()));
        grew = true;
      }
    }
  }
  const recursive = cyclic(edges);
  const names = defNames(recursive, targets, root);
  const made = new Map<object, Schema>();
  const defs: Record<string, unknown> = {};

  const refTo = (target: object): string => (target === root ? "#" : `#/$defs/${names.get(target)}`);
  // A sub-schema in place: a reference when recursive, the one shared expansion when referred to, else a copy.
  const emit = (node: unknown): unknown => {
    if (!isPlainObject(node)) return node;
    if (recursive.has(node)) return { $ref: refTo(node) };
    if (targets.has(node)) return expansion(node);
    return copy(node);
  };
  const expansion = (target: Record<string, unknown>): Schema => {
    let done = made.get(target);
    if (done === undefined) {
      done = copy(target);
      made.set(target, done);
    }
    return done;
  };
  const copy = (node: Record<string, unknown>): Schema => {
    const out: Record<string, unknown> = {};
    for (const key in node) {
      const value = node[key];
      if (DEFINITIONS.has(key) || key === "$ref" || IDENTIFIERS.has(key)) continue;
      if (SCHEMA_MAPS.has(key) && isPlainObject(value)) {
        const map: Record<string, unknown> = {};
        for (const name in value) map[name] = emit(value[name]);
        out[key] = map;
      } else if ((SCHEMA_LISTS.has(key) || key === "items") && Array.isArray(value)) {
        out[key] = value.map((one) => emit(one));
      } else if (SCHEMA_ONE.has(key)) out[key] = emit(value);
      else out[key] = value;
    }
    if (typeof node.$ref !== "string") return out;
    const target = resolve(root, node.$ref);
    if (typeof target === "object" && recursive.has(target)) return { $ref: refTo(target), ...out };
    const inlined = typeof target === "object" ? expansion(target) : target;
    return merged(inlined, out);
  };

  const schema = copy(root) as Record<string, unknown>;
  for (const target of recursive) {
    if (target !== root) defs[names.get(target) as string] = copy(target as Record<string, unknown>);
  }
  if (Object.keys(defs).length > 0) schema.$defs = defs;
  return { schema, nodes: countNodes(schema, new Map()) };
}

/**
 * `schema` to read (not to list): a raw JSON Schema's references into its definitions inlined, where it has any and
 * they can be; else `schema` as it is.
 */
export function readable(schema: Record<string, unknown>): Record<string, unknown> {
  if (!("$defs" in schema) && !("definitions" in schema)) return schema;
  try {
    return inlineRefs(schema).schema;
  } catch (error) {
    if (error instanceof RefError) return schema;
    throw error;
  }
}

/** A hand-written JSON Schema as its author wrote it (its `$ref`s and `$defs` too), and its size in schema nodes. */
export function asGiven(schema: Record<string, unknown>): Inlined {
  return { schema, nodes: countNodes(schema, new Map()) };
}

// A reference's own keywords beside the schema it inlines: annotations override, anything else is both (allOf).
function merged(inlined: Schema, own: Record<string, unknown>): Schema {
  const keys = Object.keys(own);
  if (keys.length === 0) return inlined;
  if (typeof inlined === "boolean") return inlined ? own : { allOf: [false], ...own };
  if (keys.every((key) => ANNOTATIONS.has(key) || !(key in inlined))) return { ...inlined, ...own };
  return { allOf: [inlined, own] };
}

// The targets on a cycle of references: those whose expansion would never end.
function cyclic(edges: Map<object, Set<object>>): Set<object> {
  const onCycle = new Set<object>();
  for (const start of edges.keys()) {
    // Reachable from `start` by one or more references: `start` among them means it contains itself.
    const seen = new Set<object>();
    const stack = [...(edges.get(start) ?? [])];
    while (stack.length > 0) {
      const next = stack.pop() as object;
      if (next === start) {
        onCycle.add(start);
        break;
      }
      if (seen.has(next)) continue;
      seen.add(next);
      for (const one of edges.get(next) ?? []) stack.push(one);
    }
  }
  return onCycle;
}

// A `$defs` name per recursive target: its own where it was a definition, else its pointer's last name.
function defNames(recursive: Set<object>, targets: Map<object, string>, root: object): Map<object, string> {
  const names = new Map<object, string>();
  const taken = new Set<string>();
  for (const target of recursive) {
    if (target === root) continue;
    const pointer = targets.get(target) ?? "";
    const last = pointer.split("/").pop() ?? "";
    const base = decodeURIComponent(last).replace(/[^A-Za-z0-9_.-]/g, "_") || "schema";
    let name = base;
    for (let n = 2; taken.has(name); n++) name = `${base}_${n}`;
    taken.add(name);
    names.set(target, name);
  }
  return names;
}

// Schema nodes as listed: a shared part counts once per place it appears (memoized, so a DAG counts in linear time).
function countNodes(node: unknown, memo: Map<object, number>): number {
  if (!isPlainObject(node)) return 1;
  const known = memo.get(node);
  if (known !== undefined) return known;
  let count = 1;
  eachChild(node, (child) => {
    count += countNodes(child, memo);
  });
  const defs = node.$defs;
  if (isPlainObject(defs)) for (const name in defs) count += countNodes(defs[name], memo);
  memo.set(node, count);
  return count;
}
