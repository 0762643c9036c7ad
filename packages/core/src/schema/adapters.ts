import { z } from "zod";
import { DefinitionError } from "../wire/errors.js";
import { isPlainObject } from "../wire/json-rpc.js";
import { isPromiseLike } from "../wire/maybe.js";
import {
  Compiled,
  type CompiledSchema,
  DEFERRED_NODES,
  SURELY_NODES,
  type ValidationIssue,
} from "./compiled-schema.js";
import { ARKTYPE_PATTERNS } from "./library-patterns.js";
import {
  type AnySchema,
  type InputSchema,
  isZodV3,
  type RawShape,
  type SchemaAdapter,
  type ZodV4Schema,
} from "./schema-adapter.js";
import {
  isStandardJsonSchema,
  isStandardSchema,
  outcomeOf,
  RAW_JSON_SCHEMA_VENDOR,
  type StandardJsonSchema,
  segmentText,
  standardJsonSchema,
  vendorOf,
} from "./standard-schema.js";
import { eachKey, listIssues, type ZodIssue } from "./validation-issues.js";
import { surelyV4, zodPatterns } from "./zod-v4-walk.js";

// The schema adapters (zod v4, a raw JSON Schema, any Standard Schema built in; zod v3 and others registered), the
// one that owns a schema, and compileSchema, which asks it once per schema object.

function isZodV4(schema: unknown): schema is ZodV4Schema {
  return typeof schema === "object" && schema !== null && "_zod" in schema;
}

function pathText(path: readonly PropertyKey[]): string {
  return path.length === 0 ? "(root)" : path.map(segmentText).join(".");
}

// zod v4 says "Invalid input: expected string, received undefined" for a missing field; say "required".
function readable(message: string): string {
  const missing = /^Invalid input: expected (.+), received undefined$/.exec(message);
  return missing ? `required (expected ${missing[1]})` : message.replace(/^Invalid input: /, "");
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
