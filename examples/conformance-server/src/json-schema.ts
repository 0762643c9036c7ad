import { jsonSchema } from "@toolsmith/core/json-schema";

// The json-schema-2020-12 scenario lists keywords ($schema, $anchor, if/then/else) no zod schema produces: written as
// raw JSON Schema, which core lists as written ($defs and $ref kept) and validates with Ajv.

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
