import * as z3 from "zod/v3";
import { zodToJsonSchema } from "zod-to-json-schema";
import { isPlainObject } from "./json-rpc.js";
import {
  isZodV3,
  registerSchemaAdapter,
  type SchemaAdapter,
  type ValidationIssue,
  withoutDialect,
  type ZodV3Schema,
} from "./schema-adapter.js";

// Importing this module adds zod v3 support: `import "@toolsmith/core/zod-v3";`.

// zod-to-json-schema speaks draft-07 tuples and `definitions`; rewrite those into 2020-12.
function toDraft2020(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(toDraft2020);
  if (!isPlainObject(node)) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "items" && Array.isArray(value)) {
      out.prefixItems = toDraft2020(value);
      if (!("additionalItems" in node)) out.items = false;
    } else if (key === "additionalItems") {
      out.items = toDraft2020(value);
    } else if (key === "$ref" && typeof value === "string") {
      out.$ref = value.replace(/^#\/definitions\//, "#/$defs/");
    } else if (key === "definitions") {
      out.$defs = toDraft2020(value);
    } else {
      out[key] = toDraft2020(value);
    }
  }
  return out;
}

/** zod v3 through zod-to-json-schema, rewritten to JSON Schema 2020-12. */
export const zodV3Adapter: SchemaAdapter = {
  accepts: isZodV3,
  object: (shape) => z3.object(shape as z3.ZodRawShape),
  toJsonSchema(schema, io) {
    const converted = zodToJsonSchema(schema as ZodV3Schema, {
      target: "jsonSchema7",
      effectStrategy: io === "input" ? "input" : "any",
      pipeStrategy: io,
    }) as Record<string, unknown>;
    return withoutDialect(toDraft2020(converted) as Record<string, unknown>);
  },
  validate(schema, value) {
    const result = (schema as ZodV3Schema).safeParse(value);
    return result.success ? { ok: true, value: result.data } : { ok: false, issues: result.error.issues.map(toIssue) };
  },
};

function toIssue(issue: z3.ZodIssue): ValidationIssue {
  return { path: issue.path.length === 0 ? "(root)" : issue.path.join("."), message: issue.message };
}

registerSchemaAdapter(zodV3Adapter);
