import type { AnySchema, Infer } from "@toolsmith/core";

const SCHEMA = Symbol.for("toolsmith.schemaClass");

/** Marks a schema class's instance type (types only). */
export declare const BRAND: unique symbol;

/** The instance type of a schema class: the schema's output type, marked as coming from one. */
export type SchemaInstance = { readonly [BRAND]?: AnySchema };

/** A class that carries a schema (zod, ArkType, any Standard JSON Schema); its instances have its output type. */
export interface SchemaClass<S extends AnySchema = AnySchema> {
  new (): Infer<S> & { readonly [BRAND]?: S };
  readonly [SCHEMA]: S;
}

/**
 * A base class carrying `schema`: with legacy decorators and `emitDecoratorMetadata`, a tool method whose
 * first parameter is declared as such a class takes its input schema from it, without `input:`.
 * @example
 * ```ts source="examples/schema-class.ts#schemaClass"
 * class AddInput extends schemaClass(z.object({ a: z.number(), b: z.number() })) {}
 * class Calc extends McpServer {
 *   @tool({ description: "Add" }) add({ a, b }: AddInput) {
 *     return a + b;
 *   }
 * }
 * ```
 */
export function schemaClass<S extends AnySchema>(schema: S): SchemaClass<S> {
  const carrier = class {} as unknown as SchemaClass<S>;
  Object.defineProperty(carrier, SCHEMA, { value: schema });
  return carrier;
}

/** The schema a schema class carries (inherited by subclasses), or undefined for any other value. */
export function schemaOf(value: unknown): AnySchema | undefined {
  if (typeof value !== "function") return undefined;
  return (value as Partial<SchemaClass>)[SCHEMA];
}
