import { z } from "zod";
import { SURELY_NODES } from "./compiled-schema.js";

// Whether zod's JSON Schema generator surely succeeds on a schema, told by walking its definition instead of
// converting it (a few µs against a conversion's ~100): the common types only, each checked for what would make the
// generator throw. Anything else answers false, and is converted at registration to find out.

type Node = z.core.$ZodType;
type Def = Record<string, unknown> & { type: string };

/** Metadata the generator copies as it is: a string description or title, a boolean deprecated. */
const META: Readonly<Record<string, string>> = { description: "string", title: "string", deprecated: "boolean" };

/**
 * True when `z.toJSONSchema(schema, { unrepresentable: "throw" })` surely succeeds, for either io (and, with
 * `object`, gives `type: "object"`): the schema holds only types zod always represents.
 */
export function surelyV4(schema: Node, object: boolean): boolean {
  if (object && schema._zod.def.type !== "object") return false;
  left = WALKED;
  try {
    return represents(schema, undefined);
  } catch {
    // A getter that throws (a recursive shape's, a default's) is for the conversion to report, at registration.
    return false;
  }
}

// A walked type lists as at most three schema nodes (a nullable's anyOf: itself, its type and null); a reused part is
// walked (and counted) each time, as it will be inlined each time. Past the budget: not sure, converted at once.
const WALKED = Math.floor(SURELY_NODES / 3);
let left = 0;

// `seen` holds the objects on the way: only an object (a getter in its shape) can lead back to itself. One function
// for the common types, as it runs a few times per field, cold, at registration.
function represents(schema: Node, seen: Set<Node> | undefined): boolean {
  if (--left < 0) return false;
  const internals = schema?._zod;
  if (typeof internals !== "object" || internals === null) return false;
  const def = internals.def as unknown as Def;
  const { type } = def;
  // A described or refined schema is a clone whose parents the generator converts too. A clone of the same type holds
  // its parent's definition (a description's is the same one, a refinement's adds checks): walked once, below.
  for (let node: Node | undefined = schema; node !== undefined; node = node._zod.parent) {
    const own = node._zod;
    if (own.toJSONSchema !== undefined) return false;
    // Own metadata only (each parent's is checked on it), where the registry lets us read it alone.
    const meta = OWN_META ? REGISTRY._map.get(node) : REGISTRY.get(node);
    if (meta !== undefined) for (const key in meta) if (typeof meta[key] !== META[key]) return false;
    if (node !== schema && own.def.type !== type && !represents(node, seen)) return false;
  }
  switch (type) {
    case "string":
      // A pattern of the author's is checked at registration (RE2 must be able to run it): converted at once.
      return ownPatternsOnly(def, internals.bag.patterns as Set<RegExp> | undefined);
    case "boolean":
      return true;
    case "enum":
      // An enum object may hold what JSON cannot (a BigInt), which the generator refuses.
      return Object.values(def.entries as object).every(plainValue);
    case "number":
      return divisorsOk(def, internals.bag);
    case "optional":
    case "nullable":
      return represents(def.innerType as Node, seen);
    default: {
      const walker = WALKERS.get(type);
      return walker?.(def, seen, schema) ?? false;
    }
  }
}

type Walker = (def: Def, seen: Set<Node> | undefined, schema: Node) => boolean;

const always: Walker = () => true;
const inner: Walker = (def, seen) => represents(def.innerType as Node, seen);
const all = (nodes: unknown, seen: Set<Node> | undefined) => (nodes as Node[]).every((node) => represents(node, seen));

// The other types, each a small function.
const WALKERS = new Map<string, Walker>([
  ["null", always],
  ["any", always],
  ["unknown", always],
  ["literal", (def) => (def.values as unknown[]).every(plainValue)],
  ["readonly", inner],
  ["nonoptional", inner],
  ["default", (def, seen, schema) => plainValue(def.defaultValue) && inner(def, seen, schema)],
  ["prefault", (def, seen, schema) => plainValue(def.defaultValue) && inner(def, seen, schema)],
  ["array", (def, seen) => represents(def.element as Node, seen)],
  ["tuple", (def, seen) => all(def.items, seen) && (def.rest == null || represents(def.rest as Node, seen))],
  ["union", (def, seen) => all(def.options, seen)],
  ["record", (def, seen) => represents(def.keyType as Node, seen) && represents(def.valueType as Node, seen)],
  ["object", (def, seen, schema) => objectRepresents(schema, def, seen ?? new Set())],
]);

function objectRepresents(schema: Node, def: Def, seen: Set<Node>): boolean {
  // Seen on the way already: recursion, which the generator resolves with a reference, never an error.
  if (seen.has(schema)) return true;
  seen.add(schema);
  const catchall = def.catchall as Node | undefined;
  if (catchall !== undefined && catchall._zod.def.type !== "never" && !represents(catchall, seen)) return false;
  const shape = def.shape as Record<PropertyKey, unknown>;
  // The generator refuses symbol keys; `for…in` reads the fields as it does.
  if (Object.getOwnPropertySymbols(shape).length > 0) return false;
  for (const key in shape) if (!represents(shape[key] as Node, seen)) return false;
  // Off the way again: met later, it is reused, not recursive.
  seen.delete(schema);
  return true;
}

const REGISTRY = z.globalRegistry;
const OWN_META = (REGISTRY._map as unknown) instanceof WeakMap;

// The generator refuses a `multipleOf` of zero, NaN or ±Infinity.
function divisorsOk(def: Def, bag: Record<string, unknown>): boolean {
  if (bag.multipleOf !== undefined && !divisor(bag.multipleOf)) return false;
  const checks = def.checks as { _zod: { def: { check: string; value?: unknown } } }[] | undefined;
  if (checks === undefined) return true;
  for (const { _zod } of checks) if (_zod.def.check === "multiple_of" && !divisor(_zod.def.value)) return false;
  return true;
}

function divisor(value: unknown): boolean {
  return typeof value === "number" && Number.isFinite(value) && value !== 0;
}

// A literal or default the generator writes through JSON: a primitive surely survives it (a default function's
// value is read here once more).
function plainValue(value: unknown): boolean {
  const type = typeof value;
  return value === null || type === "string" || type === "number" || type === "boolean";
}

let own: ReadonlySet<string> | undefined;

/**
 * The patterns zod's own formats list (`z.email()`, `z.uuid()`, `z.iso.datetime()` …, and `z.regexes`): zod's to keep
 * safe, left to it. Made on first need, as few servers' schemas have patterns.
 */
export function zodPatterns(): ReadonlySet<string> {
  if (own) return own;
  const made = Object.values(z.regexes).map((regex) => {
    try {
      return typeof regex === "function" ? (regex as (options?: object) => unknown)() : regex;
    } catch {
      return undefined;
    }
  });
  const formats = [z.uuid(), z.uuidv4(), z.uuidv6(), z.uuidv7(), z.guid(), z.iso.datetime(), z.iso.time()];
  for (const format of formats) made.push(format._zod.def.pattern);
  made.push(z.iso.datetime({ offset: true })._zod.def.pattern, z.iso.datetime({ local: true })._zod.def.pattern);
  own = new Set(made.flatMap((regex) => (regex instanceof RegExp ? [regex.source] : [])));
  return own;
}

// A format schema is its own check (its `pattern`); `.regex()` and the like are checks of the string's.
function ownPatternsOnly(def: Def, bag: Set<RegExp> | undefined): boolean {
  const checks = (def.checks as { _zod: { def: { pattern?: unknown } } }[] | undefined) ?? [];
  const patterns = [def.pattern, ...checks.map((check) => check._zod.def.pattern), ...(bag ?? [])];
  return patterns.every((pattern) => !(pattern instanceof RegExp) || zodPatterns().has(pattern.source));
}
