// The two elicitation forms the suite inspects keyword by keyword, as raw JSON Schema: zod cannot say them exactly
// (z.number().int() adds the safe-integer range, a titled union becomes anyOf without a type, empty `required` is dropped).

/** SEP-1034: a default on every primitive type. */
export const DEFAULTS_FORM = {
  type: "object",
  properties: {
    name: { type: "string", description: "User name", default: "John Doe" },
    age: { type: "integer", description: "User age", default: 30 },
    score: { type: "number", description: "User score", default: 95.5 },
    status: {
      type: "string",
      description: "User status",
      enum: ["active", "inactive", "pending"],
      default: "active",
    },
    verified: { type: "boolean", description: "Verification status", default: true },
  },
  required: [],
};

/** SEP-1330: the five enum shapes, single and multiple, titled and untitled, and the legacy enumNames. */
export const ENUMS_FORM = {
  type: "object",
  properties: {
    untitledSingle: { type: "string", description: "Select one option", enum: ["option1", "option2", "option3"] },
    titledSingle: {
      type: "string",
      description: "Select one option with titles",
      oneOf: [
        { const: "value1", title: "First Option" },
        { const: "value2", title: "Second Option" },
        { const: "value3", title: "Third Option" },
      ],
    },
    legacyEnum: {
      type: "string",
      description: "Select one option (legacy)",
      enum: ["opt1", "opt2", "opt3"],
      enumNames: ["Option One", "Option Two", "Option Three"],
    },
    untitledMulti: {
      type: "array",
      description: "Select multiple options",
      minItems: 1,
      maxItems: 3,
      items: { type: "string", enum: ["option1", "option2", "option3"] },
    },
    titledMulti: {
      type: "array",
      description: "Select multiple options with titles",
      minItems: 1,
      maxItems: 3,
      items: {
        anyOf: [
          { const: "value1", title: "First Choice" },
          { const: "value2", title: "Second Choice" },
          { const: "value3", title: "Third Choice" },
        ],
      },
    },
  },
  required: [],
};
