// The TypeScript type of the values a raw JSON Schema accepts, read from the schema's literal type (`as const`, or
// `jsonSchema`'s const type parameter). It covers what tool inputs use; anything else is `unknown`, never a guess.

/** A JSON Schema as an object: a literal (read-only as `as const` makes it), or a value of any schema type. */
export type JsonSchemaObject = object;

/** Whether the type is of what a schema accepts (`"input"`) or what validation hands on, defaults filled (`"output"`). */
export type SchemaSide = "input" | "output";

type Simplify<T> = { [K in keyof T]: T[K] } & {};

/**
 * The type of the values `S` accepts: `type` (one or a list, so `["string", "null"]` is nullable), `properties` with
 * `required`, `additionalProperties`, `items`/`prefixItems`, `enum`, `const`, `anyOf`/`oneOf`, `allOf`. A `$ref` is
 * `unknown`. On the `"output"` side, an optional property with a `default` is present (validation fills it in).
 * @example
 * ```ts source="examples/schema.ts#FromJsonSchema"
 * type City = FromJsonSchema<{ type: "object"; properties: { city: { type: "string" } }; required: ["city"] }>;
 * // { city: string }
 * ```
 */
export type FromJsonSchema<S, Side extends SchemaSide = "output"> = S extends true
  ? unknown
  : S extends false
    ? never
    : S extends { readonly $ref: string } | { readonly $dynamicRef: string }
      ? unknown
      : S extends { readonly const: infer C }
        ? C
        : S extends { readonly enum: readonly (infer E)[] }
          ? E
          : S extends { readonly anyOf: readonly unknown[] }
            ? Branches<S["anyOf"], Side> & Besides<S, "anyOf", Side>
            : S extends { readonly oneOf: readonly unknown[] }
              ? Branches<S["oneOf"], Side> & Besides<S, "oneOf", Side>
              : S extends { readonly allOf: readonly unknown[] }
                ? AllOf<S["allOf"], Side> & Besides<S, "allOf", Side>
                : S extends { readonly type: infer T }
                  ? T extends readonly unknown[]
                    ? OfType<T[number], S, Side>
                    : OfType<T, S, Side>
                  : S extends { readonly properties: object }
                    ? ObjectOf<S, Side>
                    : unknown;

// The keywords beside a combinator hold too (`type: "object"`, `properties` … with an `anyOf` of `required`s).
type Besides<S, K extends PropertyKey, Side extends SchemaSide> = FromJsonSchema<Omit<S, K>, Side>;

type Branches<List, Side extends SchemaSide> = List extends readonly (infer B)[] ? FromEach<B, Side> : unknown;
// Distributes over the branches' union, one type per branch.
type FromEach<B, Side extends SchemaSide> = B extends unknown ? FromJsonSchema<B, Side> : never;

type AllOf<List, Side extends SchemaSide> = List extends readonly [infer First, ...infer Rest]
  ? FromJsonSchema<First, Side> & AllOf<Rest, Side>
  : unknown;

type OfType<T, S, Side extends SchemaSide> = T extends "string"
  ? string
  : T extends "number" | "integer"
    ? number
    : T extends "boolean"
      ? boolean
      : T extends "null"
        ? null
        : T extends "array"
          ? ArrayOf<S, Side>
          : T extends "object"
            ? ObjectOf<S, Side>
            : unknown;

type ArrayOf<S, Side extends SchemaSide> = S extends { readonly prefixItems: readonly unknown[] }
  ? [...TupleOf<S["prefixItems"], Side>, ...RestOf<S, Side>]
  : S extends { readonly items: infer I }
    ? FromJsonSchema<I, Side>[]
    : unknown[];

type TupleOf<List, Side extends SchemaSide> = List extends readonly [infer First, ...infer Rest]
  ? [FromJsonSchema<First, Side>, ...TupleOf<Rest, Side>]
  : [];

// After `prefixItems`, `items` types the rest; `items: false` closes the tuple.
type RestOf<S, Side extends SchemaSide> = S extends { readonly items: infer I }
  ? I extends false
    ? []
    : FromJsonSchema<I, Side>[]
  : unknown[];

type PropertiesOf<S> = S extends { readonly properties: infer P extends object } ? P : Record<never, never>;
type RequiredOf<S> = S extends { readonly required: readonly (infer R)[] } ? R : never;

// Required keys: listed in `required`, or (output side) holding a `default` that validation fills in.
type PresentKeys<S, Side extends SchemaSide> = {
  [K in keyof PropertiesOf<S>]: K extends RequiredOf<S>
    ? K
    : Side extends "output"
      ? PropertiesOf<S>[K] extends { readonly default: unknown }
        ? K
        : never
      : never;
}[keyof PropertiesOf<S>];

// Unlisted keys: `additionalProperties: false` (or absent) leaves them out of the type; `true` or a schema admits any.
type ExtraOf<S> = S extends { readonly additionalProperties: infer A }
  ? A extends false
    ? Record<never, never>
    : { [key: string]: unknown }
  : Record<never, never>;

type ObjectOf<S, Side extends SchemaSide> = Simplify<
  { -readonly [K in PresentKeys<S, Side>]: FromJsonSchema<PropertiesOf<S>[K], Side> } & {
    -readonly [K in Exclude<keyof PropertiesOf<S>, PresentKeys<S, Side>>]?: FromJsonSchema<PropertiesOf<S>[K], Side>;
  } & { -readonly [K in Exclude<RequiredOf<S> & string, keyof PropertiesOf<S>>]: unknown } & ExtraOf<S>
>;
