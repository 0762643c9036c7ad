import { type JsonSchema, jsonSchema } from "@toolsmith/core/json-schema";

const VENDOR = jsonSchema({ type: "object" })["~standard"].vendor;

// The remote's schema, listed as it gave it; the remote checks its own arguments, so any value passes here.
export function passThrough(schema: unknown): JsonSchema {
  const listed = () => structuredClone(schema) as Record<string, unknown>;
  return {
    "~standard": {
      version: 1,
      vendor: VENDOR,
      validate: (value) => ({ value }),
      jsonSchema: { input: listed, output: listed },
    },
  };
}
