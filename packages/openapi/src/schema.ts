// An OpenAPI schema (3.0's dialect or 3.1's JSON Schema 2020-12), dereferenced, as a plain JSON Schema 2020-12 tree:
// only keywords Ajv's strict mode knows, 3.0's `nullable`, `example` and boolean `exclusiveMinimum` rewritten, a
// cycle or a branch past the depth cut to `{}`, and the whole bounded in nodes. What is cut is said in `cuts`.

/** Bounds of one produced schema. */
export interface SchemaBounds {
  /** The deepest nesting of schemas kept; below it a schema is `{}` (anything). */
  readonly maxDepth: number;
  /** The most schema nodes one tool's input or output may have; past it the rest are `{}`. */
  readonly maxNodes: number;
}

/** Where an external `$ref` not to be fetched is kept, so the dereferencer leaves it alone. */
export const EXTERNAL_REF = "x-toolsmith-external-ref";

export const DEFAULT_BOUNDS: SchemaBounds = { maxDepth: 12, maxNodes: 4000 };

/** How one conversion went: nodes used, and what was cut (each reason once). */
export interface Conversion {
  nodes: number;
  readonly cuts: Set<string>;
}

// Formats Ajv (with ajv-formats) checks; OpenAPI's own (int32, int64, float, double, byte, binary, password) are
// hints Ajv's strict mode calls unknown, so they are left out.
const FORMATS = new Set([
  "date",
  "time",
  "date-time",
  "duration",
  "uri",
  "uri-reference",
  "uri-template",
  "url",
  "email",
  "hostname",
  "ipv4",
  "ipv6",
  "regex",
  "uuid",
  "json-pointer",
  "relative-json-pointer",
]);
const TYPES = new Set(["string", "number", "integer", "boolean", "array", "object", "null"]);
const COPIED = [
  "title",
  "description",
  "multipleOf",
  "maximum",
  "minimum",
  "maxLength",
  "minLength",
  "maxItems",
  "minItems",
  "uniqueItems",
  "maxProperties",
  "minProperties",
  "deprecated",
  "readOnly",
  "writeOnly",
];
const ONE = ["items", "additionalProperties", "not", "contains", "propertyNames", "unevaluatedProperties"];
const LISTS = ["allOf", "anyOf", "oneOf", "prefixItems"];
const MAPS = ["properties", "patternProperties"];

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Convert one schema; `seen` holds the schema objects above it (a cycle), `depth` how deep it sits. */
export function convertSchema(
  schema: unknown,
  bounds: SchemaBounds,
  conversion: Conversion,
  depth = 0,
  seen: Set<object> = new Set(),
  branch = false,
): Record<string, unknown> | boolean {
  if (typeof schema === "boolean") return schema;
  if (!isObject(schema)) return {};
  if (seen.has(schema)) {
    conversion.cuts.add("a recursive schema cut where it repeats");
    return {};
  }
  if (depth >= bounds.maxDepth) {
    conversion.cuts.add(`schemas nested deeper than ${bounds.maxDepth} levels`);
    return {};
  }
  if (conversion.nodes >= bounds.maxNodes) {
    conversion.cuts.add(`schema nodes past ${bounds.maxNodes}`);
    return {};
  }
  const ref = schema.$ref ?? schema[EXTERNAL_REF];
  if (typeof ref === "string") {
    conversion.cuts.add(`a reference not resolved (${ref.slice(0, 200)})`);
    return {};
  }
  conversion.nodes++;
  seen.add(schema);
  const out: Record<string, unknown> = {};
  const type = typeOf(schema.type);
  if (type !== undefined) out.type = type;
  for (const key of COPIED) if (schema[key] !== undefined && valid(key, schema[key])) out[key] = schema[key];
  if (schema.const !== undefined) copyValue(schema.const, bounds, conversion, (value) => (out.const = value));
  exclusive(schema, out, "exclusiveMinimum", "minimum");
  exclusive(schema, out, "exclusiveMaximum", "maximum");
  if (typeof schema.pattern === "string") out.pattern = schema.pattern;
  if (typeof schema.format === "string" && FORMATS.has(schema.format)) out.format = schema.format;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) {
    copyValue(schema.enum, bounds, conversion, (value) => (out.enum = [...new Set(value as unknown[])]));
  }
  if (Array.isArray(schema.required)) {
    const names = schema.required.filter((name): name is string => typeof name === "string");
    if (names.length > 0) out.required = [...new Set(names)];
  }
  if (Array.isArray(schema.examples)) copyValue(schema.examples, bounds, conversion, (value) => (out.examples = value));
  else if (schema.example !== undefined)
    copyValue([schema.example], bounds, conversion, (value) => (out.examples = value));
  for (const key of ONE) {
    if (schema[key] !== undefined && (isObject(schema[key]) || typeof schema[key] === "boolean")) {
      out[key] = convertSchema(schema[key], bounds, conversion, depth + 1, seen, branch);
    }
  }
  for (const key of LISTS) {
    const list = schema[key];
    if (Array.isArray(list) && list.length > 0) {
      // Ajv never fills a default below anyOf or oneOf, and its strict mode refuses one there.
      const below = branch || key === "anyOf" || key === "oneOf";
      out[key] = list.map((item) => convertSchema(item, bounds, conversion, depth + 1, seen, below));
    }
  }
  for (const key of MAPS) {
    const map = schema[key];
    if (!isObject(map)) continue;
    const converted: Record<string, unknown> = {};
    for (const [name, item] of Object.entries(map)) {
      if (conversion.nodes >= bounds.maxNodes) {
        conversion.cuts.add(`schema nodes past ${bounds.maxNodes}`);
        // The properties left out must still be accepted.
        if (out.additionalProperties === false) out.additionalProperties = true;
        break;
      }
      // Ajv cannot check a property named __proto__ (core refuses such a schema).
      if (name === "__proto__") continue;
      converted[name] = convertSchema(item, bounds, conversion, depth + 1, seen, branch);
      const fallback = isObject(item) && !branch ? item.default : undefined;
      if (key === "properties" && fallback !== undefined && fits(fallback, converted[name])) {
        (converted[name] as Record<string, unknown>).default = fallback;
      }
    }
    out[key] = converted;
  }
  objectShape(out);
  if (schema.nullable === true) nullable(out);
  seen.delete(schema);
  return out;
}

// The deepest a copied value (const, enum, examples) may nest.
const VALUE_DEPTH = 64;

// A value the schema holds (`const`, `enum`, an example) copied as plain JSON: the dereferencer resolves a `$ref`
// inside one too, so it may refer to itself (tools/list could not be written) or share one object so often that
// writing it out would never end. Such a value is left out (said in `cuts`), as is one of over `maxNodes` objects.
function copyValue(value: unknown, bounds: SchemaBounds, conversion: Conversion, keep: (value: unknown) => void): void {
  const above = new Set<object>();
  let nodes = 0;
  const copy = (item: unknown, depth: number): unknown => {
    if (typeof item !== "object" || item === null) return item;
    if (above.has(item) || depth > VALUE_DEPTH || ++nodes > bounds.maxNodes) throw new RangeError();
    above.add(item);
    const out = Array.isArray(item)
      ? item.map((entry) => copy(entry, depth + 1))
      : Object.fromEntries(Object.entries(item).map(([key, entry]) => [key, copy(entry, depth + 1)]));
    above.delete(item);
    return out;
  };
  try {
    keep(copy(value, 0));
  } catch {
    conversion.cuts.add("a value (const, enum or example) that refers to itself or is too large left out");
  }
}

const ARRAY_KEYWORDS = ["items", "prefixItems", "contains", "minItems", "maxItems", "uniqueItems"];
const OBJECT_KEYWORDS = ["properties", "required", "additionalProperties", "patternProperties", "propertyNames"];

// What Ajv's strict mode asks of an object schema: `type: "object"` beside its keywords (OpenAPI means an object
// there), and each `required` name among its `properties` (one it lacks is added as `{}`, which changes nothing).
function objectShape(out: Record<string, unknown>): void {
  const types = out.type === undefined ? undefined : ([] as unknown[]).concat(out.type);
  // Keywords of a type the schema does not admit never apply (a document's mistake Ajv's strict mode refuses).
  if (types && !types.includes("object"))
    for (const key of [...OBJECT_KEYWORDS, "minProperties", "maxProperties"]) delete out[key];
  if (types && !types.includes("array")) for (const key of ARRAY_KEYWORDS) delete out[key];
  if (out.type === undefined && OBJECT_KEYWORDS.some((key) => out[key] !== undefined)) out.type = "object";
  if (!Array.isArray(out.required)) return;
  const properties = (out.properties ?? {}) as Record<string, unknown>;
  for (const name of out.required as string[]) if (!Object.hasOwn(properties, name)) properties[name] = {};
  out.properties = properties;
}

function typeOf(type: unknown): string | string[] | undefined {
  if (typeof type === "string") return TYPES.has(type) ? type : undefined;
  if (!Array.isArray(type)) return undefined;
  const kept = [...new Set(type.filter((item): item is string => typeof item === "string" && TYPES.has(item)))];
  return kept.length === 0 ? undefined : kept.length === 1 ? kept[0] : kept;
}

// The numeric and counted keywords as 2020-12 takes them (a negative maxLength would fail the meta-schema).
function valid(key: string, value: unknown): boolean {
  if (key === "title" || key === "description") return typeof value === "string";
  if (key === "deprecated" || key === "readOnly" || key === "writeOnly" || key === "uniqueItems") {
    return typeof value === "boolean";
  }
  if (typeof value !== "number" || !Number.isFinite(value)) return false;
  if (key === "multipleOf") return value > 0;
  if (key.startsWith("max") || key.startsWith("min")) {
    return key === "maximum" || key === "minimum" || (Number.isInteger(value) && value >= 0);
  }
  return true;
}

// 3.0's `exclusiveMinimum: true` beside `minimum` is 2020-12's `exclusiveMinimum: <minimum>`.
function exclusive(schema: Record<string, unknown>, out: Record<string, unknown>, key: string, bound: string): void {
  const value = schema[key];
  if (typeof value === "number" && Number.isFinite(value)) out[key] = value;
  else if (value === true && typeof out[bound] === "number") {
    out[key] = out[bound];
    delete out[bound];
  }
}

// 3.0's `nullable: true`: null joins the type and the enum.
function nullable(out: Record<string, unknown>): void {
  if (typeof out.type === "string") out.type = [out.type, "null"];
  else if (Array.isArray(out.type) && !out.type.includes("null")) out.type = [...out.type, "null"];
  if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
}

// A default is kept only where it has the property's own type: a wrong one would be filled in and then refused.
function fits(value: unknown, schema: unknown): boolean {
  if (!isObject(schema)) return false;
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (Array.isArray(schema.enum) && !schema.enum.includes(value)) return false;
  return types.some(
    (type) =>
      (type === "string" && typeof value === "string") ||
      (type === "boolean" && typeof value === "boolean") ||
      (type === "integer" && Number.isInteger(value)) ||
      (type === "number" && typeof value === "number") ||
      (type === "null" && value === null),
  );
}
