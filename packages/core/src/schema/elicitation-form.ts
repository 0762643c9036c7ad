import { isPlainObject } from "../wire/json-rpc.js";
import { inlineRefs, RefError } from "./inline-refs.js";

// What an elicitation form may ask (the spec's PrimitiveSchemaDefinition): a flat object whose fields are strings
// (a format, an enum, or oneOf of titled consts), numbers, integers, booleans, or multi-select enums (an array whose
// items are an enum, or anyOf of titled consts). Nothing nested: no object fields, no arrays of anything else.

const PRIMITIVE_TYPES: ReadonlySet<unknown> = new Set(["string", "number", "integer", "boolean"]);
const PROPERTY_KEYS = [
  "type",
  "title",
  "description",
  "default",
  "enum",
  "enumNames",
  "oneOf",
  "anyOf",
  "format",
  "minLength",
  "maxLength",
  "minimum",
  "maximum",
  "minItems",
  "maxItems",
];
const ALLOWED =
  "each field is a string, number, integer or boolean, a choice (enum, or oneOf of { const, title }), or a multi-select (an array whose items are an enum, or anyOf of { const, title })";

// JSON Schema keywords whose values are schemas: a field (or a choice) that holds one asks for more than a value.
const SUBSCHEMA_KEYWORDS = [
  "$ref",
  "$dynamicRef",
  "$recursiveRef",
  "$defs",
  "definitions",
  "allOf",
  "anyOf",
  "oneOf",
  "not",
  "if",
  "then",
  "else",
  "items",
  "prefixItems",
  "additionalItems",
  "contains",
  "unevaluatedItems",
  "properties",
  "patternProperties",
  "additionalProperties",
  "unevaluatedProperties",
  "propertyNames",
  "dependentSchemas",
  "dependencies",
];

/** A choice of a single- or multi-select: a string constant and its title. */
export type Choice = { const: string; title?: unknown };

function subschemaIn(schema: Record<string, unknown>): string | undefined {
  return SUBSCHEMA_KEYWORDS.find((key) => Object.hasOwn(schema, key));
}

/** The choices `options` lists (each `{ const, title? }`, no schema of its own), or undefined when it lists others. */
export function choicesIn(options: unknown): Choice[] | undefined {
  if (!Array.isArray(options) || options.length === 0) return undefined;
  return options.every(
    (option) => isPlainObject(option) && typeof option.const === "string" && subschemaIn(option) === undefined,
  )
    ? (options as Choice[])
    : undefined;
}

function titled(options: Choice[]): Choice[] {
  return options.map(({ const: value, title }) =>
    typeof title === "string" ? { const: value, title } : { const: value },
  );
}

function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.length > 0 && value.every((item) => typeof item === "string");
}

// A multi-select's items, as the spec spells them; undefined when they are not enum values.
function multiSelectItems(items: unknown): Record<string, unknown> | undefined {
  if (!isPlainObject(items) || (items.type !== undefined && items.type !== "string")) return undefined;
  if (nestedIn(items) !== undefined) return undefined;
  if (isStringList(items.enum)) return { type: "string", enum: items.enum };
  const options = choicesIn(items.anyOf) ?? choicesIn(items.oneOf);
  return options ? { anyOf: titled(options) } : undefined;
}

// What a field holds beyond a flat value: a keyword with a schema in it (but its choices, and a multi-select's items,
// checked on their own), or an enum value that is an array or an object.
function nestedIn(property: Record<string, unknown>): string | undefined {
  for (const key of SUBSCHEMA_KEYWORDS) {
    if (!Object.hasOwn(property, key) || property[key] === false) continue;
    if ((key === "oneOf" || key === "anyOf") && choicesIn(property[key])) continue;
    if (key === "items" && property.type === "array") continue;
    return `holds a schema under "${key}"`;
  }
  if (Array.isArray(property.enum) && property.enum.some((value) => typeof value === "object" && value !== null)) {
    return "lists an enum value that is an array or an object";
  }
  return undefined;
}

function what(property: Record<string, unknown>): string {
  if (property.type === "object" || isPlainObject(property.properties)) return "is an object";
  if (property.type === "array") return "is an array whose items are not enum values";
  if (Array.isArray(property.type)) return "has several types";
  if (property.type === undefined) return "is a union or a schema without a type";
  return `has type ${JSON.stringify(property.type)}`;
}

function refuse(name: string, why: string): TypeError {
  return new TypeError(`ctx.elicit schema field "${name}" ${why}; an elicitation form is flat: ${ALLOWED}`);
}

/** A field as sent: the spec's own shape, or why it cannot be asked. */
function field(name: string, property: unknown): Record<string, unknown> {
  if (!isPlainObject(property)) throw refuse(name, "is not a schema");
  const nested = property.type === "object" || isPlainObject(property.properties) ? undefined : nestedIn(property);
  if (nested !== undefined) throw refuse(name, nested);
  if (property.type === undefined && !isPlainObject(property.properties)) {
    // zod writes a union of titled literals as anyOf of consts; a form spells a titled choice oneOf.
    const options = choicesIn(property.oneOf) ?? choicesIn(property.anyOf);
    if (options) {
      const { anyOf: _anyOf, oneOf: _oneOf, ...rest } = property;
      return { ...rest, type: "string", oneOf: titled(options) };
    }
    if (Array.isArray(property.enum)) return property;
  }
  if (property.type === "array") {
    const items = multiSelectItems(property.items);
    if (items) return { ...property, items };
  } else if (PRIMITIVE_TYPES.has(property.type) && !isPlainObject(property.properties)) {
    return property;
  }
  throw refuse(name, what(property));
}

function fields(schema: unknown, what: string): Record<string, unknown> {
  if (!isPlainObject(schema) || schema.type !== "object" || !isPlainObject(schema.properties)) {
    throw new TypeError(`${what} must be an object of flat fields, like { name: z.string() }`);
  }
  // Only the named fields are asked: a schema for others (a catchall, a loose object, $ref, allOf …) is not a form.
  const beyond = SUBSCHEMA_KEYWORDS.find(
    (key) => key !== "properties" && Object.hasOwn(schema, key) && schema[key] !== false,
  );
  if (beyond !== undefined) {
    throw new TypeError(
      `${what} holds a schema under "${beyond}" beside its fields; an elicitation form is flat: ${ALLOWED}`,
    );
  }
  return schema.properties;
}

// zod writes the safe-integer range on every z.number().int(): noise in a form, so it is left out.
function withoutIntegerRange(kept: Record<string, unknown>): Record<string, unknown> {
  if (kept.type !== "integer") return kept;
  if (kept.minimum === Number.MIN_SAFE_INTEGER) delete kept.minimum;
  if (kept.maximum === Number.MAX_SAFE_INTEGER) delete kept.maximum;
  return kept;
}

/** The `requestedSchema` for a form written in zod (its JSON Schema): the keywords a form knows, nothing else. */
export function formFromJsonSchema(listed: Record<string, unknown>): Record<string, unknown> {
  const jsonSchema = selfContained(listed);
  const out: Record<string, unknown> = {};
  for (const [name, property] of Object.entries(fields(jsonSchema, "ctx.elicit schema"))) {
    const shaped = field(name, property);
    const kept: Record<string, unknown> = {};
    for (const key of PROPERTY_KEYS) if (key in shaped) kept[key] = shaped[key];
    if (shaped.items !== undefined) kept.items = shaped.items;
    out[name] = withoutIntegerRange(kept);
  }
  const schema: Record<string, unknown> = { type: "object", properties: out };
  if (Array.isArray(jsonSchema.required)) schema.required = jsonSchema.required;
  return schema;
}

// A raw JSON Schema is listed as written: its references into `$defs` are inlined here, as a form holds none.
function selfContained(listed: Record<string, unknown>): Record<string, unknown> {
  if (!("$defs" in listed) && !("definitions" in listed)) return listed;
  try {
    return inlineRefs(listed).schema;
  } catch (error) {
    if (!(error instanceof RefError)) throw error;
    throw new TypeError(`ctx.elicit schema ${error.message}; an elicitation form is flat: ${ALLOWED}`);
  }
}

/** Check a form written as raw JSON Schema; it is sent as written (every keyword kept) when it is flat. */
export function checkRawForm(requestedSchema: Record<string, unknown>): void {
  for (const [name, property] of Object.entries(fields(requestedSchema, "ctx.elicit requestedSchema"))) {
    field(name, property);
  }
}
