// Where a JSON Schema holds sub-schemas, by the shape of the keyword's value: read by every pass that walks one.

/** Keywords whose value is a map of schemas by name (`$defs`/`definitions` apart: see each pass). */
export const SCHEMA_MAPS: ReadonlySet<string> = new Set(["properties", "patternProperties", "dependentSchemas"]);
/** Keywords whose value is a list of schemas. */
export const SCHEMA_LISTS: ReadonlySet<string> = new Set(["anyOf", "allOf", "oneOf", "prefixItems"]);
/** Keywords whose value is one schema (`items` may be a draft-07 list too). */
export const SCHEMA_ONE: ReadonlySet<string> = new Set([
  "items",
  "additionalItems",
  "additionalProperties",
  "not",
  "if",
  "then",
  "else",
  "contains",
  "propertyNames",
  "unevaluatedItems",
  "unevaluatedProperties",
  "contentSchema",
]);
