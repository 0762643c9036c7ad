import type { ErrorObject } from "ajv/dist/2020.js";
import { isPlainObject } from "../wire/json-rpc.js";

// Ajv's errors as Standard Schema issues: the instance's path as keys (array indexes as numbers), and messages that
// read like zod's through core's `- path: message` lines ("required" for a missing property, at that property).

/** One Standard Schema v1 issue. */
export interface JsonSchemaIssue {
  readonly message: string;
  readonly path: readonly PropertyKey[];
}

// A client's key in a message is cut to this many characters: a megabyte-long key is told of, not echoed.
const KEY_TEXT = 64;

function keyText(key: unknown): string {
  const text = String(key);
  return JSON.stringify(text.length > KEY_TEXT ? `${text.slice(0, KEY_TEXT)}…` : text);
}

// `/items/2/name` read against the value: a segment into an array is its index as a number.
function pathOf(pointer: string, value: unknown): PropertyKey[] {
  if (pointer === "") return [];
  const path: PropertyKey[] = [];
  let node: unknown = value;
  for (const raw of pointer.slice(1).split("/")) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    const index = Array.isArray(node) && /^(0|[1-9]\d*)$/.test(key) ? Number(key) : undefined;
    path.push(index ?? key);
    node =
      isPlainObject(node) || Array.isArray(node) ? (node as Record<PropertyKey, unknown>)[index ?? key] : undefined;
  }
  return path;
}

// The `type` the schema gives a missing property, when it says one, for "required (expected string)".
function expectedType(schemaRoot: unknown, error: ErrorObject, missing: string): string | undefined {
  if (!error.schemaPath.startsWith("#/")) return undefined;
  let node: unknown = schemaRoot;
  for (const raw of error.schemaPath.slice(2).split("/").slice(0, -1)) {
    if (!isPlainObject(node) && !Array.isArray(node)) return undefined;
    node = (node as Record<string, unknown>)[raw.replace(/~1/g, "/").replace(/~0/g, "~")];
  }
  const properties = isPlainObject(node) ? node.properties : undefined;
  const property = isPlainObject(properties) && Object.hasOwn(properties, missing) ? properties[missing] : undefined;
  const type = isPlainObject(property) ? property.type : undefined;
  if (typeof type === "string") return type;
  return Array.isArray(type) && type.every((name) => typeof name === "string") ? type.join(" or ") : undefined;
}

function issueOf(error: ErrorObject, value: unknown, schemaRoot: unknown): JsonSchemaIssue {
  const path = pathOf(error.instancePath, value);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case "required": {
      const missing = String(params.missingProperty);
      const type = expectedType(schemaRoot, error, missing);
      return { path: [...path, missing], message: type ? `required (expected ${type})` : "required" };
    }
    case "additionalProperties":
      return { path, message: `unrecognized key ${keyText(params.additionalProperty)}` };
    case "unevaluatedProperties":
      return { path, message: `unrecognized key ${keyText(params.unevaluatedProperty)}` };
    case "enum": {
      const allowed = Array.isArray(params.allowedValues) ? params.allowedValues : [];
      const shown = allowed.slice(0, 10).map((choice) => JSON.stringify(choice));
      return { path, message: `must be one of ${shown.join(", ")}${allowed.length > 10 ? ", …" : ""}` };
    }
    case "const":
      return { path, message: `must be ${JSON.stringify(params.allowedValue)}` };
    default:
      return { path, message: error.message ?? `fails ${error.keyword}` };
  }
}

/**
 * Ajv's errors for `value` as issues. A failed `anyOf`/`oneOf` is told once, at its own path, rather than as each
 * branch's complaint (as zod tells a failed union).
 */
export function issuesOf(errors: readonly ErrorObject[], value: unknown, schemaRoot: unknown): JsonSchemaIssue[] {
  const unions = errors
    .filter((error) => error.keyword === "anyOf" || error.keyword === "oneOf")
    .map((error) => `${error.schemaPath}/`);
  const told = unions.length === 0 ? errors : errors.filter((e) => !unions.some((u) => e.schemaPath.startsWith(u)));
  return told.map((error) => issueOf(error, value, schemaRoot));
}
