import { z } from "zod";
import type * as z3 from "zod/v3";
import { MAX_DEPTH, tooDeep } from "../wire/depth.js";
import { DefinitionError } from "../wire/errors.js";
import { isPlainObject } from "../wire/json-rpc.js";

/** A zod v4 schema (classic or mini). */
export type ZodV4Schema = z.core.$ZodType;
/** A zod v3 schema (`zod/v3`, or the zod 3 package). */
export type ZodV3Schema = z3.ZodTypeAny;
/** Any schema Toolsmith takes. */
export type AnySchema = ZodV4Schema | ZodV3Schema;
/** A raw shape: `{ title: z.string() }`, taken as an object of those fields. */
export type RawShape = { readonly [key: string]: AnySchema };
/** What a definition's `input` may be: an object schema or a raw shape. */
export type InputSchema = AnySchema | RawShape;

/** The output type of a schema, zod v3 or v4. */
export type Infer<S> = S extends z.core.$ZodType ? z.output<S> : S extends z3.ZodTypeAny ? z3.output<S> : never;

type OptionalKeys<T> = { [K in keyof T]: undefined extends T[K] ? K : never }[keyof T];
type Simplify<T> = { [K in keyof T]: T[K] } & {};

/** The output type of a raw shape: keys whose schema accepts undefined become optional. */
export type InferShape<S extends RawShape> = Simplify<
  { [K in Exclude<keyof S, OptionalKeys<{ [P in keyof S]: Infer<S[P]> }>>]: Infer<S[K]> } & {
    [K in OptionalKeys<{ [P in keyof S]: Infer<S[P]> }>]?: Infer<S[K]>;
  }
>;

/** The argument type a handler receives for a definition's `input`. */
export type InferInput<I> = I extends undefined
  ? Record<string, never>
  : I extends AnySchema
    ? Infer<I>
    : I extends RawShape
      ? InferShape<I>
      : never;

/** One problem found by validation: where, and what was wrong. */
export interface ValidationIssue {
  path: string;
  message: string;
}

export type Validation<T = unknown> = { ok: true; value: T } | { ok: false; issues: ValidationIssue[] };

/** A schema compiled once: its JSON Schema and a validator. */
export interface CompiledSchema {
  readonly jsonSchema: Record<string, unknown>;
  validate(value: unknown): Validation | Promise<Validation>;
}

/** The seam between schema libraries and the router: JSON Schema out, validation in. */
export interface SchemaAdapter {
  /** True when this adapter owns `schema`. */
  accepts(schema: unknown): boolean;
  /** Wrap a raw shape of this adapter's schemas into an object schema. */
  object(shape: RawShape): AnySchema;
  toJsonSchema(schema: AnySchema, io: "input" | "output"): Record<string, unknown>;
  validate(schema: AnySchema, value: unknown): Validation | Promise<Validation>;
}

function isZodV4(schema: unknown): schema is ZodV4Schema {
  return typeof schema === "object" && schema !== null && "_zod" in schema;
}

/** True for a zod v3 schema (it has `_def` and `safeParse`, and no v4 `_zod`). */
export function isZodV3(schema: unknown): schema is ZodV3Schema {
  return (
    typeof schema === "object" &&
    schema !== null &&
    !("_zod" in schema) &&
    "_def" in schema &&
    typeof (schema as { safeParse?: unknown }).safeParse === "function"
  );
}

function pathText(path: readonly PropertyKey[]): string {
  return path.length === 0 ? "(root)" : path.map(String).join(".");
}

// zod v4 says "Invalid input: expected string, received undefined" for a missing field; say "required".
function readable(message: string): string {
  const missing = /^Invalid input: expected (.+), received undefined$/.exec(message);
  return missing ? `required (expected ${missing[1]})` : message.replace(/^Invalid input: /, "");
}

/** How many validation issues an answer lists; a value wrong in a million places is told of the first ones. */
export const LISTED_ISSUES = 20;

/** The first LISTED_ISSUES of `issues`, then one that counts the rest. */
export function listIssues<T>(issues: readonly T[], toIssue: (issue: T) => ValidationIssue): ValidationIssue[] {
  const listed = issues.slice(0, LISTED_ISSUES).map(toIssue);
  const more = issues.length - LISTED_ISSUES;
  if (more > 0) listed.push({ path: "…", message: `and ${more} more issue${more === 1 ? "" : "s"}` });
  return listed;
}

function issuesOf(issues: readonly { path: readonly PropertyKey[]; message: string }[]): ValidationIssue[] {
  return listIssues(issues, (issue) => ({ path: pathText(issue.path), message: readable(issue.message) }));
}

export function withoutDialect(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = schema;
  return rest;
}

/** zod v4 through zod's own JSON Schema generator (2020-12). */
export const zodV4Adapter: SchemaAdapter = {
  accepts: isZodV4,
  object: (shape) => z.object(shape as Record<string, z.core.$ZodType>),
  toJsonSchema(schema, io) {
    return withoutDialect(
      z.toJSONSchema(schema as ZodV4Schema, { target: "draft-2020-12", io, unrepresentable: "throw" }) as Record<
        string,
        unknown
      >,
    );
  },
  validate(schema, value) {
    try {
      const result = z.safeParse(schema as ZodV4Schema, value);
      return result.success ? { ok: true, value: result.data } : { ok: false, issues: issuesOf(result.error.issues) };
    } catch (error) {
      if (!(error instanceof z.core.$ZodAsyncError)) throw error;
      return z
        .safeParseAsync(schema as ZodV4Schema, value)
        .then((result) =>
          result.success ? { ok: true, value: result.data } : { ok: false, issues: issuesOf(result.error.issues) },
        );
    }
  },
};

const ADAPTERS: SchemaAdapter[] = [zodV4Adapter];

/**
 * Teach Toolsmith another schema library. `import "@toolsmith/core/zod-v3"` calls this for zod v3,
 * so servers that use only zod v4 never load zod-to-json-schema.
 * @example
 * registerSchemaAdapter(myAdapter);
 */
export function registerSchemaAdapter(adapter: SchemaAdapter): void {
  if (!ADAPTERS.includes(adapter)) ADAPTERS.push(adapter);
}

/** True for a zod schema of either version. */
export function isSchema(value: unknown): value is AnySchema {
  return isZodV4(value) || isZodV3(value) || ADAPTERS.some((adapter) => adapter.accepts(value));
}

/** True for a raw shape: a plain object whose every value is a zod schema. */
export function isRawShape(value: unknown): value is RawShape {
  return isPlainObject(value) && !isSchema(value) && Object.values(value).every(isSchema);
}

function adapterFor(schema: unknown, what: string): SchemaAdapter {
  const adapter = ADAPTERS.find((candidate) => candidate.accepts(schema));
  if (!adapter && isZodV3(schema)) {
    throw new DefinitionError(
      `${what} is a zod v3 schema: add import "@toolsmith/core/zod-v3" once, before defining it (zod v4-only servers skip loading zod-to-json-schema)`,
    );
  }
  if (!adapter) {
    throw new DefinitionError(`${what} must be a zod schema (zod v4, or zod v3 from "zod/v3") or a shape of them`);
  }
  return adapter;
}

/** A raw shape as one object schema; every field must come from the same zod version. */
export function objectOf(shape: RawShape, what: string): AnySchema {
  const fields = Object.values(shape);
  if (fields.length === 0) return z.object({});
  const adapter = adapterFor(fields[0], what);
  if (!fields.every((field) => adapterFor(field, what) === adapter)) {
    throw new DefinitionError(`${what} mixes zod v3 and zod v4 schemas; use one version per shape`);
  }
  return adapter.object(shape);
}

/**
 * Compile a schema once: JSON Schema plus validator.
 * @example
 * const compiled = compileSchema(z.object({ a: z.string() }), "input", "tool 'x' input");
 */
export function compileSchema(input: InputSchema, io: "input" | "output", what: string): CompiledSchema {
  // Compiled once per schema object: every server and every instance of a server class shares the result.
  const cached = COMPILED[io].get(input);
  if (cached) return cached;
  const compiled = compileUncached(input, io, what);
  COMPILED[io].set(input, compiled);
  return compiled;
}

const COMPILED = { input: new WeakMap<object, CompiledSchema>(), output: new WeakMap<object, CompiledSchema>() };

const SCHEMA_LISTS = ["anyOf", "oneOf", "allOf", "prefixItems"];

// True when a value the JSON Schema accepts may nest without bound: a reference (recursion), or a place where anything
// goes (`{}`, `true`, an array without `items`, `additionalProperties` that takes anything). Keys zod strips do not
// count: an object's unlisted keys never reach the handler unless `additionalProperties` says so.
function admitsDeep(node: unknown): boolean {
  if (node === true) return true;
  if (!isPlainObject(node)) return false;
  if ("$ref" in node || "$dynamicRef" in node || "$recursiveRef" in node) return true;
  if (SCHEMA_LISTS.some((key) => Array.isArray(node[key]) && (node[key] as unknown[]).some(admitsDeep))) return true;
  const types: unknown[] | undefined = Array.isArray(node.type)
    ? node.type
    : node.type === undefined
      ? undefined
      : [node.type];
  if (types === undefined) return !SCHEMA_LISTS.some((key) => key in node) && !("enum" in node) && !("const" in node);
  if (types.includes("array")) {
    if (node.items === undefined ? !Array.isArray(node.prefixItems) : admitsDeep(node.items)) return true;
  }
  if (types.includes("object")) {
    const maps = [node.properties, node.patternProperties].filter(isPlainObject);
    if (maps.some((map) => Object.values(map).some(admitsDeep))) return true;
    if (node.additionalProperties !== undefined && admitsDeep(node.additionalProperties)) return true;
  }
  return false;
}

function compileUncached(input: InputSchema, io: "input" | "output", what: string): CompiledSchema {
  const schema = isRawShape(input) ? objectOf(input, what) : input;
  const adapter = adapterFor(schema, what);
  let jsonSchema: Record<string, unknown>;
  try {
    jsonSchema = adapter.toJsonSchema(schema, io);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new DefinitionError(`${what} cannot be expressed as JSON Schema (${reason}); use JSON-representable types`);
  }
  // zod reads a missing optional field named like an Object.prototype member ("constructor", "toString") from the
  // prototype and rejects it; such schemas validate a prototype-free copy of the object.
  const properties = isPlainObject(jsonSchema.properties) ? Object.keys(jsonSchema.properties) : [];
  const validate: CompiledSchema["validate"] = !properties.some((name) => name in Object.prototype)
    ? (value) => adapter.validate(schema, value)
    : (value) => adapter.validate(schema, isPlainObject(value) ? Object.assign(Object.create(null), value) : value);
  // A schema whose values may nest without bound is walked that deep (a recursive one) or lets the value through
  // (`z.unknown()`): those values are bounded first. Any other schema bounds them itself, at no cost here.
  if (!admitsDeep(jsonSchema)) return { jsonSchema, validate };
  return {
    jsonSchema,
    validate(value) {
      const deep = tooDeep(value);
      if (!deep) return validate(value);
      const path = deep.length > 1 ? String(deep[0]) : "(root)";
      return { ok: false, issues: [{ path, message: `nests deeper than ${MAX_DEPTH} levels of arrays and objects` }] };
    },
  };
}

/** Turn validation issues into one line per field, for a model or a person to read. */
export function describeIssues(issues: readonly ValidationIssue[]): string {
  return issues.map((issue) => `- ${issue.path}: ${issue.message}`).join("\n");
}
