import { type AnySchema, registerSchemaAdapter, type SchemaAdapter } from "@toolsmith/core";

// A tool input given as JSON Schema itself, through core's SchemaAdapter seam: the json-schema-2020-12 scenario
// lists keywords ($anchor, if/then/else, $schema) that no zod schema produces.

class RawJsonSchema {
  constructor(readonly schema: Readonly<Record<string, unknown>>) {}
}

const rawJsonSchemaAdapter: SchemaAdapter = {
  accepts: (schema) => schema instanceof RawJsonSchema,
  object: () => {
    throw new Error("a raw JSON Schema is a whole input schema, not a field of a shape");
  },
  toJsonSchema: (schema) => ({ ...(schema as unknown as RawJsonSchema).schema }),
  // Written by hand: listed as written, its $defs and $ref kept (the scenario checks them), not inlined.
  verbatim: true,
  // Listed for the suite to read, not enforced: the fixture accepts any object of arguments.
  validate: (_schema, value) =>
    typeof value === "object" && value !== null && !Array.isArray(value)
      ? { ok: true, value }
      : { ok: false, issues: [{ path: "(root)", message: "expected an object of arguments" }] },
};

registerSchemaAdapter(rawJsonSchemaAdapter);

/** `schema` as a tool's `input`, listed verbatim. */
export function jsonSchema(schema: Readonly<Record<string, unknown>>): AnySchema {
  return new RawJsonSchema(schema) as unknown as AnySchema;
}

/** The inputSchema the json-schema-2020-12 scenario expects of `json_schema_2020_12_tool`, keyword for keyword. */
export const JSON_SCHEMA_2020_12 = jsonSchema({
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  $defs: {
    address: {
      $anchor: "addressDef",
      type: "object",
      properties: { street: { type: "string" }, city: { type: "string" } },
    },
  },
  properties: {
    name: { type: "string" },
    address: { $ref: "#/$defs/address" },
    contactMethod: { type: "string", enum: ["phone", "email"] },
    phone: { type: "string" },
    email: { type: "string" },
  },
  allOf: [{ anyOf: [{ required: ["phone"] }, { required: ["email"] }] }],
  if: { properties: { contactMethod: { const: "phone" } }, required: ["contactMethod"] },
  // biome-ignore lint/suspicious/noThenProperty: a JSON Schema keyword in a value that is never awaited
  then: { required: ["phone"] },
  else: { required: ["email"] },
  additionalProperties: false,
});
