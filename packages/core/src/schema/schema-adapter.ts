import { z } from "zod";
import type * as z3 from "zod/v3";
import { DefinitionError } from "../wire/errors.js";
import { isPlainObject } from "../wire/json-rpc.js";
import { isPromiseLike } from "../wire/maybe.js";
import {
  Compiled,
  type CompiledSchema,
  DEFERRED_NODES,
  SURELY_NODES,
  type Validation,
  type ValidationIssue,
} from "./compiled-schema.js";
import { ARKTYPE_PATTERNS } from "./library-patterns.js";
import {
  isStandardJsonSchema,
  isStandardSchema,
  outcomeOf,
  RAW_JSON_SCHEMA_VENDOR,
  type StandardJsonSchema,
  type StandardOutput,
  type StandardSchema,
  segmentText,
  standardJsonSchema,
  unrecognizedKey,
  vendorOf,
} from "./standard-schema.js";
import { surelyV4, zodPatterns } from "./zod-v4-walk.js";

/** A zod v4 schema (classic or mini). */
export type ZodV4Schema = z.core.$ZodType;
/** A zod v3 schema (`zod/v3`, or the zod 3 package). */
export type ZodV3Schema = z3.ZodTypeAny;
/** Any schema Toolsmith takes: zod, or any library's Standard Schema with a JSON Schema side (ArkType, Valibot …). */
export type AnySchema = ZodV4Schema | ZodV3Schema | StandardJsonSchema;
/** A raw shape: `{ title: z.string() }`, taken as an object of those zod fields (other libraries: their object). */
export type RawShape = { readonly [key: string]: ZodV4Schema | ZodV3Schema };
/** What a definition's `input` may be: an object schema or a raw shape. */
export type InputSchema = AnySchema | RawShape;

/** The output type of a schema: zod v3 or v4, or any Standard Schema. */
export type Infer<S> = S extends z.core.$ZodType
  ? z.output<S>
  : S extends z3.ZodTypeAny
    ? z3.output<S>
    : S extends StandardSchema
      ? StandardOutput<S>
      : never;

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

export type { CompiledSchema, Validation, ValidationIssue } from "./compiled-schema.js";

/** The seam between schema libraries and the router: JSON Schema out, validation in. */
export interface SchemaAdapter {
  /** True when this adapter owns `schema`. */
  accepts(schema: unknown): boolean;
  /** Wrap a raw shape of this adapter's schemas into an object schema. */
  object(shape: RawShape): AnySchema;
  /**
   * `small`: registration's walk (`surely`) proved the schema within `SURELY_NODES` per field, so reused parts may be
   * written out in place at no risk of blowing up (a library may do that faster than it writes references).
   */
  toJsonSchema(schema: AnySchema, io: "input" | "output", small?: boolean): Record<string, unknown>;
  /** `listed` is the JSON Schema listed for this side (input or output; its references followed), to read issues. */
  validate(schema: AnySchema, value: unknown, listed: Record<string, unknown>): Validation | Promise<Validation>;
  /**
   * Optional, for speed: true when a cheap walk shows that `toJsonSchema` surely succeeds on `schema` (with
   * `object`: and gives `type: "object"`; a raw shape's fields are asked without, and `object(shape)` of sure fields
   * must surely be an object). Its JSON Schema is then made on first use instead of at registration; false leaves
   * the conversion at registration, to report what it cannot represent. True also promises a JSON Schema of at most
   * `SURELY_NODES` (96) schema nodes once its reused parts are inlined (each counted where it is used), so a deferred
   * schema never exceeds a tool's size bound at its first list.
   */
  surely?(schema: AnySchema, object: boolean): boolean;
  /**
   * True for JSON Schema written by hand (a raw JSON Schema adapter): listed as written, its `$ref`s and `$defs`
   * included, where a library's output has its reused parts inlined and only recursion kept as a reference.
   */
  verbatim?: boolean;
  /**
   * True when validation hands an object's unlisted keys on to the handler, unread (ArkType, a raw JSON Schema):
   * such values are then bounded in depth before validation, as a field that takes anything is.
   */
  keepsUnlisted?: boolean;
  /** True when validation runs `pattern` in linear time itself (a raw JSON Schema, on RE2): no check before it. */
  linearPatterns?: boolean;
  /**
   * The library's own patterns (those of its formats: email, uuid …), as its JSON Schema lists them: left to it,
   * neither refused nor checked first. Any other pattern is checked on RE2 before the library runs it.
   */
  ownPatterns?: () => ReadonlySet<string>;
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
  return path.length === 0 ? "(root)" : path.map(segmentText).join(".");
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

type ZodIssue = { path: readonly PropertyKey[]; message: string; code?: string; keys?: readonly unknown[] };

/** zod's issues, its unrecognized keys told one per line as every library's are (`unrecognized key "x"`). */
export function eachKey<T extends ZodIssue>(issues: readonly T[]): readonly T[] {
  if (!issues.some((issue) => issue.code === "unrecognized_keys" && Array.isArray(issue.keys))) return issues;
  return issues.flatMap((issue) =>
    issue.code === "unrecognized_keys" && Array.isArray(issue.keys)
      ? issue.keys.map((key) => ({ ...issue, message: unrecognizedKey(key) }))
      : [issue],
  );
}

function issuesOf(issues: readonly ZodIssue[]): ValidationIssue[] {
  return listIssues(eachKey(issues), (issue) => ({ path: pathText(issue.path), message: readable(issue.message) }));
}

export function withoutDialect(schema: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _dialect, ...rest } = schema;
  return rest;
}

/**
 * zod v4 through zod's own JSON Schema generator (2020-12). A reused part is a reference, which Toolsmith inlines
 * once (zod's own inlining repeats the work per use: exponential for a schema that doubles per level), except in a
 * schema the walk proved small, where zod's inlining is cheaper than references (first `tools/list` of 1,000 tools).
 */
export const zodV4Adapter: SchemaAdapter = {
  accepts: isZodV4,
  object: (shape) => z.object(shape as Record<string, z.core.$ZodType>),
  toJsonSchema(schema, io, small) {
    return withoutDialect(
      z.toJSONSchema(schema as ZodV4Schema, {
        target: "draft-2020-12",
        io,
        unrepresentable: "throw",
        reused: small === true ? "inline" : "ref",
      }) as Record<string, unknown>,
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
  surely: surelyV4 as SchemaAdapter["surely"],
  ownPatterns: zodPatterns,
};

/** Any Standard Schema with a JSON Schema side (ArkType, Valibot's `toStandardJsonSchema` …); after zod v4's own. */
export const standardSchemaAdapter: SchemaAdapter = {
  accepts: isStandardJsonSchema,
  object() {
    throw new DefinitionError("a raw shape takes zod fields only; wrap other libraries' fields in their own object");
  },
  toJsonSchema: (schema, io) => standardJsonSchema(schema as StandardJsonSchema, io),
  // Unknown libraries may (ArkType does) hand unlisted keys on.
  keepsUnlisted: true,
  ownPatterns: () => ARKTYPE_PATTERNS,
  validate(schema, value, listed) {
    const result = (schema as StandardJsonSchema)["~standard"].validate(value);
    if (!isPromiseLike(result)) return outcomeOf(result, value, listed, listIssues);
    return Promise.resolve(result).then((settled) => outcomeOf(settled, value, listed, listIssues));
  },
};

/**
 * A raw JSON Schema from `@toolsmith/core/json-schema`: validated as any Standard Schema, but listed as its author
 * wrote it (`$schema`, `$defs`, `$ref`, `$anchor` kept), since its references are the author's choice; still counted
 * for size.
 */
export const rawJsonSchemaAdapter: SchemaAdapter = {
  ...standardSchemaAdapter,
  accepts: (schema) => isStandardJsonSchema(schema) && vendorOf(schema) === RAW_JSON_SCHEMA_VENDOR,
  toJsonSchema: (schema, io) => standardJsonSchema(schema as StandardJsonSchema, io, true),
  verbatim: true,
  linearPatterns: true,
};

const ADAPTERS: SchemaAdapter[] = [zodV4Adapter, rawJsonSchemaAdapter, standardSchemaAdapter];

/**
 * Teach Toolsmith another schema library. `import "@toolsmith/core/zod-v3"` calls this for zod v3,
 * so servers that use only zod v4 never load zod-to-json-schema.
 * @example
 * ```ts source="examples/schema.ts#registerSchemaAdapter"
 * registerSchemaAdapter(myAdapter);
 * ```
 */
export function registerSchemaAdapter(adapter: SchemaAdapter): void {
  if (!ADAPTERS.includes(adapter)) ADAPTERS.push(adapter);
}

/** True for a zod schema of either version (or of another adapter's library). */
export function isSchema(value: unknown): value is AnySchema {
  return ownerOf(value) !== undefined || isZodV3(value);
}

/** True for a raw shape: a plain object whose every value is a zod schema. */
export function isRawShape(value: unknown): value is RawShape {
  return isPlainObject(value) && !isSchema(value) && Object.values(value).every(isSchema);
}

function ownerOf(schema: unknown): SchemaAdapter | undefined {
  for (let i = 0; i < ADAPTERS.length; i++) if (ADAPTERS[i]?.accepts(schema)) return ADAPTERS[i];
  return undefined;
}

function adapterFor(schema: unknown, what: string): SchemaAdapter {
  const adapter = ownerOf(schema);
  if (!adapter) throw new DefinitionError(notASchema(schema, what));
  return adapter;
}

function notASchema(schema: unknown, what: string): string {
  if (isZodV3(schema)) {
    return `${what} is a zod v3 schema: add import "@toolsmith/core/zod-v3" once, before defining it (zod v4-only servers skip loading zod-to-json-schema)`;
  }
  if (isStandardSchema(schema)) {
    return `${what} is a Standard Schema (vendor "${vendorOf(schema)}") without a JSON Schema side (~standard.jsonSchema), which MCP lists; wrap it in its library's Standard JSON Schema converter (Valibot: toStandardJsonSchema(schema) from "@valibot/to-json-schema") or use a library that has one (zod v4, ArkType)`;
  }
  return `${what} must be a zod schema (zod v4, or zod v3 from "zod/v3"), a shape of zod fields, or a Standard Schema with a JSON Schema side (ArkType, Valibot via toStandardJsonSchema)`;
}

/** A raw shape's adapter (every field must come from the same zod version), and whether its JSON Schema is sure. */
interface ShapeOf {
  adapter: SchemaAdapter;
  surely: boolean;
}

// One pass over the fields: undefined when `input` is no raw shape (a field is no schema), else its adapter; the
// first mistake in field order is thrown (a zod v3 field without its adapter, zod v3 and v4 mixed).
function shapeOf(input: InputSchema, what: string): ShapeOf | undefined {
  if (!isPlainObject(input) || isSchema(input)) return undefined;
  let adapter: SchemaAdapter | undefined;
  let mistake: string | undefined;
  // Each sure field lists at most SURELY_NODES nodes: a deferred shape stays within DEFERRED_NODES.
  let surely =
    Object.getOwnPropertySymbols(input).length === 0 &&
    Object.keys(input).length < Math.floor(DEFERRED_NODES / SURELY_NODES);
  for (const field of Object.values(input)) {
    const own = ownerOf(field);
    if (!own && !isZodV3(field) && !isStandardSchema(field)) return undefined;
    if (mistake !== undefined) continue;
    if (!own) mistake = notASchema(field, what);
    else if (own === standardSchemaAdapter || own === rawJsonSchemaAdapter) {
      mistake = `${what} is a raw shape with a field from ${vendorOf(field)}; a raw shape takes zod fields only: wrap the fields in ${vendorOf(field)}'s object (ArkType: type({ … }), Valibot: toStandardJsonSchema(v.object({ … })))`;
    } else if (adapter !== undefined && own !== adapter) {
      mistake = `${what} mixes zod v3 and zod v4 schemas; use one version per shape`;
    } else {
      adapter = own;
      surely &&= own.surely?.(field as AnySchema, false) === true;
    }
  }
  if (mistake !== undefined) throw new DefinitionError(mistake);
  if (adapter) return { adapter, surely };
  // An empty shape is a zod v4 object, whatever adapters there are.
  return { adapter: zodV4Adapter, surely: zodV4Adapter.surely?.(zodV4Adapter.object({}), true) === true };
}

/**
 * Compile a schema once: JSON Schema plus validator.
 * @example
 * ```ts source="examples/schema.ts#compileSchema"
 * const compiled = compileSchema(z.object({ a: z.string() }), "input", "tool 'x' input");
 * ```
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

function compileUncached(input: InputSchema, io: "input" | "output", what: string): CompiledSchema {
  const shape = shapeOf(input, what);
  if (shape) return new Compiled(shape.adapter, input as RawShape, undefined, io, what, shape.surely);
  const adapter = adapterFor(input, what);
  const schema = input as AnySchema;
  return new Compiled(adapter, undefined, schema, io, what, adapter.surely?.(schema, true) === true);
}

/** Turn validation issues into one line per field, for a model or a person to read. */
export function describeIssues(issues: readonly ValidationIssue[]): string {
  return issues.map((issue) => `- ${issue.path}: ${issue.message}`).join("\n");
}
