type JsonSchema = {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  default?: unknown;
  description?: string;
};

/** One JSON Schema as a short type: `string`, `"a" | "b"`, `number[]`, `object`. */
export function typeOf(schema: JsonSchema | undefined): string {
  if (!schema || typeof schema !== "object") return "any";
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (Array.isArray(schema.enum)) return schema.enum.map((value) => JSON.stringify(value)).join(" | ");
  const union = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(union)) return union.map((part) => typeOf(part)).join(" | ");
  if (Array.isArray(schema.type)) return schema.type.join(" | ");
  if (schema.type === "array") return `${typeOf(schema.items)}[]`;
  return schema.type ?? "any";
}

export interface ArgumentSummary {
  name: string;
  type: string;
  required: boolean;
  default?: unknown;
  description?: string;
}

/** The arguments an input schema (an object schema) declares, in order. */
export function argumentsOf(schema: unknown): ArgumentSummary[] {
  const object = schema as JsonSchema | undefined;
  const required = new Set(object?.required ?? []);
  return Object.entries(object?.properties ?? {}).map(([name, property]) => ({
    name,
    type: typeOf(property),
    required: required.has(name),
    ...(property.default !== undefined ? { default: property.default } : {}),
    ...(typeof property.description === "string" ? { description: property.description } : {}),
  }));
}

/** The JSON Schema type of one property, for turning key=value text into the value the tool expects. */
export function propertyType(schema: unknown, key: string): string | undefined {
  const property = (schema as JsonSchema | undefined)?.properties?.[key];
  if (!property) return undefined;
  if (typeof property.type === "string") return property.type;
  if (Array.isArray(property.enum) && property.enum.every((value) => typeof value === "string")) return "string";
  return undefined;
}

/** `word` after its indefinite article, for messages: "a number", "an integer", "an object". */
export function withArticle(word: string): string {
  return `${/^[aeiou]/i.test(word) ? "an" : "a"} ${word}`;
}
