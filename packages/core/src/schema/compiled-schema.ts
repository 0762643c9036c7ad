import { MAX_DEPTH, tooDeep } from "../wire/depth.js";
import { DefinitionError } from "../wire/errors.js";
import { isPlainObject } from "../wire/json-rpc.js";
import { asGiven, inlineRefs, RefError, readable } from "./inline-refs.js";
import { regExpsOf } from "./library-regexps.js";
import { patternPlan, prechecked, preloadEngine } from "./pattern-precheck.js";

// A compiled schema: its JSON Schema made at once or on first read, and a validator chosen by that JSON Schema.

/** One problem found by validation: where, and what was wrong. */
export interface ValidationIssue {
  path: string;
  message: string;
}

export type Validation<T = unknown> = { ok: true; value: T } | { ok: false; issues: ValidationIssue[] };

/** A schema compiled once: its JSON Schema and a validator. */
export interface CompiledSchema {
  /** Made on first read when registration could tell it surely exists (see `SchemaAdapter.surely`), else at once. */
  readonly jsonSchema: Record<string, unknown>;
  /** True when the JSON Schema is `type: "object"`, known without making it. */
  readonly isObject: boolean;
  /** How many schema nodes the JSON Schema lists (an inlined part once per place); makes it when not made yet. */
  readonly nodes: number;
  /**
   * True when the JSON Schema is not made yet and surely lists at most `DEFERRED_NODES` nodes (registration deferred
   * it: see `SchemaAdapter.surely`).
   */
  readonly deferred: boolean;
  validate(value: unknown): Validation | Promise<Validation>;
}

/** What a compiled schema asks of its schema library: a `SchemaAdapter`, seen from here. */
export interface Library {
  object(shape: never): unknown;
  toJsonSchema(schema: never, io: "input" | "output", small?: boolean): Record<string, unknown>;
  validate(schema: never, value: unknown, listed: Record<string, unknown>): Validation | Promise<Validation>;
  verbatim?: boolean;
  keepsUnlisted?: boolean;
  linearPatterns?: boolean;
  ownPatterns?: () => ReadonlySet<string>;
}

const NO_PATTERNS: ReadonlySet<string> = new Set();
const noPatterns = () => NO_PATTERNS;

const SCHEMA_LISTS = ["anyOf", "oneOf", "allOf", "prefixItems"];

/**
 * The most schema nodes a JSON Schema made on first use may list: an adapter's `surely` promises it (per field of a
 * raw shape, `SURELY_NODES`; a shape of more than `DEFERRED_NODES / SURELY_NODES - 1` fields is converted at once).
 */
export const SURELY_NODES = 96;
export const DEFERRED_NODES = 64 * SURELY_NODES;

// True when a value the JSON Schema accepts may nest without bound, or is compared to any depth: a reference
// (recursion), `uniqueItems`, or a place where anything goes (`{}`, `true`, an array without `items`,
// `additionalProperties` that takes anything). An object's unlisted keys count only for a library that hands them on
// (`keepsUnlisted`: ArkType, a raw JSON Schema), unread; zod drops them.
function admitsDeep(node: unknown, keepsUnlisted: boolean, memo = new Map<object, boolean>()): boolean {
  if (node === true) return true;
  if (!isPlainObject(node)) return false;
  // Inlined parts are shared objects: each is asked once.
  const known = memo.get(node);
  if (known !== undefined) return known;
  memo.set(node, false);
  const answer = admitsDeepNode(node, keepsUnlisted, (child) => admitsDeep(child, keepsUnlisted, memo));
  memo.set(node, answer);
  return answer;
}

function admitsDeepNode(
  node: Record<string, unknown>,
  keepsUnlisted: boolean,
  deep: (child: unknown) => boolean,
): boolean {
  if ("$ref" in node || "$dynamicRef" in node || "$recursiveRef" in node) return true;
  // Telling items apart compares them all the way down (a raw JSON Schema's `uniqueItems`, through Ajv).
  if (node.uniqueItems === true) return true;
  if (SCHEMA_LISTS.some((key) => Array.isArray(node[key]) && (node[key] as unknown[]).some(deep))) return true;
  const types: unknown[] | undefined = Array.isArray(node.type)
    ? node.type
    : node.type === undefined
      ? undefined
      : [node.type];
  if (types === undefined) return !SCHEMA_LISTS.some((key) => key in node) && !("enum" in node) && !("const" in node);
  if (types.includes("array")) {
    if (node.items === undefined ? !Array.isArray(node.prefixItems) : deep(node.items)) return true;
  }
  if (types.includes("object")) {
    const maps = [node.properties, node.patternProperties].filter(isPlainObject);
    if (maps.some((map) => Object.values(map).some(deep))) return true;
    if (node.additionalProperties !== undefined && deep(node.additionalProperties)) return true;
    const closed = node.additionalProperties === false || node.unevaluatedProperties === false;
    if (keepsUnlisted && node.additionalProperties === undefined && !closed) return true;
  }
  return false;
}

type Validate = CompiledSchema["validate"];

// One class for a schema compiled at once and one compiled on first use, so `tools/call`'s `input.validate(…)` sees
// one shape; a lazy one swaps its validator in on the first call.
export class Compiled implements CompiledSchema {
  readonly isObject: boolean;
  validate: Validate;
  readonly #adapter: Library;
  readonly #shape: object | undefined;
  readonly #io: "input" | "output";
  readonly #what: string;
  #schema: unknown;
  #jsonSchema: Record<string, unknown> | undefined;
  #nodes = 0;
  // Registration's walk proved it small (`surely`): its library may inline reused parts itself.
  readonly #small: boolean;

  constructor(
    adapter: Library,
    shape: object | undefined,
    schema: unknown,
    io: "input" | "output",
    what: string,
    lazy: boolean,
  ) {
    this.#adapter = adapter;
    // A lazy shape's fields as registered (getters kept): one the caller changes later must not reach the first list.
    this.#shape =
      lazy && shape !== undefined ? Object.defineProperties({}, Object.getOwnPropertyDescriptors(shape)) : shape;
    this.#schema = schema;
    this.#io = io;
    this.#what = what;
    this.#small = lazy;
    if (lazy) {
      this.isObject = true;
      this.validate = firstValidate;
    } else {
      this.isObject = this.jsonSchema.type === "object";
      this.validate = validatorOf(adapter, this.#zod(), this.jsonSchema, what);
    }
  }

  get jsonSchema(): Record<string, unknown> {
    this.#jsonSchema ??= this.#convert();
    return this.#jsonSchema;
  }

  get nodes(): number {
    this.jsonSchema;
    return this.#nodes;
  }

  get deferred(): boolean {
    return this.#jsonSchema === undefined;
  }

  /** The validator this schema swaps in for `firstValidate`. */
  built(): Validate {
    return validatorOf(this.#adapter, this.#zod(), this.jsonSchema, this.#what);
  }

  // A raw shape's object schema, made on first use.
  #zod(): unknown {
    this.#schema ??= this.#adapter.object(this.#shape as never);
    return this.#schema;
  }

  #convert(): Record<string, unknown> {
    let converted: Record<string, unknown>;
    try {
      converted = this.#adapter.toJsonSchema(this.#zod() as never, this.#io, this.#small);
    } catch (error) {
      // A schema's own definition mistake (a raw JSON Schema's) already says what to change: told as it is.
      if (error instanceof DefinitionError)
        throw new DefinitionError(`${this.#what}: ${error.message}`, { cause: error });
      const reason = error instanceof Error ? error.message : String(error);
      throw new DefinitionError(
        `${this.#what} cannot be expressed as JSON Schema (${reason}); use JSON-representable types`,
      );
    }
    try {
      // Once per schema: reused parts inlined, only recursion kept as a reference (into `$defs`, or `#`).
      const { schema, nodes } = this.#adapter.verbatim ? asGiven(converted) : inlineRefs(converted, this.#small);
      this.#nodes = nodes;
      return schema;
    } catch (error) {
      // A library's JSON Schema that holds itself (no JSON can) would otherwise overflow the stack unnamed.
      if (error instanceof RangeError) {
        throw new DefinitionError(`${this.#what}'s JSON Schema contains itself or nests too deep to list`);
      }
      if (!(error instanceof RefError)) throw error;
      throw new DefinitionError(`${this.#what}'s JSON Schema ${error.message}; strict clients need it self-contained`);
    }
  }
}

// A lazy schema's first validation: build the validator (the JSON Schema tells which), keep it, use it.
function firstValidate(this: Compiled, value: unknown): Validation | Promise<Validation> {
  this.validate = this.built();
  return this.validate(value);
}

function validatorOf(adapter: Library, schema: unknown, listed: Record<string, unknown>, what: string): Validate {
  // Issues are read against the schema with a verbatim one's references followed (once, here).
  const jsonSchema = adapter.verbatim ? readable(listed) : listed;
  // zod reads a missing optional field named like an Object.prototype member ("constructor", "toString") from the
  // prototype and rejects it; such schemas validate a prototype-free copy of the object.
  const properties = isPlainObject(jsonSchema.properties) ? Object.keys(jsonSchema.properties) : [];
  const run: Validate = !properties.some((name) => name in Object.prototype)
    ? (value) => adapter.validate(schema as never, value, jsonSchema)
    : (value) =>
        adapter.validate(
          schema as never,
          isPlainObject(value) ? Object.assign(Object.create(null), value) : value,
          jsonSchema,
        );
  // A library runs its patterns as backtracking RegExps: strings go through RE2 first (none to check: no cost).
  const plan = adapter.linearPatterns
    ? undefined
    : patternPlan(jsonSchema, what, adapter.ownPatterns ?? noPatterns, () => regExpsOf(schema));
  if (plan) preloadEngine();
  const validate = plan ? prechecked(plan, run, what) : run;
  // A schema whose values may nest without bound is walked that deep (a recursive one) or lets the value through
  // (`z.unknown()`): those values are bounded first. Any other schema bounds them itself, at no cost here.
  if (!admitsDeep(jsonSchema, adapter.keepsUnlisted === true)) return validate;
  return (value) => {
    const deep = tooDeep(value);
    if (!deep) return validate(value);
    const path = deep.length > 1 ? String(deep[0]) : "(root)";
    return { ok: false, issues: [{ path, message: `nests deeper than ${MAX_DEPTH} levels of arrays and objects` }] };
  };
}
