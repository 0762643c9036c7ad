import type { z } from "zod";
import type * as z3 from "zod/v3";
import type { Validation } from "./compiled-schema.js";
import type { StandardJsonSchema, StandardOutput, StandardSchema } from "./standard-schema.js";

// The seam between schema libraries and Toolsmith: the schemas it takes, what they infer, and what an adapter does
// (adapters.ts holds the adapters and picks the one that owns a schema).

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
