import { isPlainObject } from "../wire/json-rpc.js";
import type { Validation, ValidationIssue } from "./compiled-schema.js";

// Any library implementing Standard Schema (https://standardschema.dev) and its Standard JSON Schema side: ArkType
// natively, Valibot through `toStandardJsonSchema`, any other. The interfaces are declared here, by shape, so core
// takes no dependency on the spec package.

/** One issue a Standard Schema reports: a message, and where (keys, or `{ key }` segments). */
export interface StandardIssue {
  readonly message: string;
  readonly path?: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }> | undefined;
}

/** What a Standard Schema's `validate` returns: the value, or the issues. */
export type StandardResult<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | { readonly issues: ReadonlyArray<StandardIssue> };

/** The `~standard` properties of a Standard Schema v1. */
export interface StandardProps<Input = unknown, Output = Input> {
  readonly version: 1;
  readonly vendor: string;
  readonly validate: (value: unknown) => StandardResult<Output> | Promise<StandardResult<Output>>;
  readonly types?: { readonly input: Input; readonly output: Output } | undefined;
}

/** A Standard Schema v1: any library's schema with a `~standard` validator. */
export interface StandardSchema<Input = unknown, Output = Input> {
  readonly "~standard": StandardProps<Input, Output>;
}

/** The options a Standard JSON Schema converter takes. */
export interface StandardJsonSchemaOptions {
  readonly target: "draft-2020-12" | "draft-07" | "openapi-3.0" | (string & {});
  readonly libraryOptions?: Record<string, unknown> | undefined;
}

/** A Standard Schema that also implements Standard JSON Schema: what Toolsmith takes from any library. */
export interface StandardJsonSchema<Input = unknown, Output = Input> {
  readonly "~standard": StandardProps<Input, Output> & {
    readonly jsonSchema: {
      readonly input: (options: StandardJsonSchemaOptions) => Record<string, unknown>;
      readonly output: (options: StandardJsonSchemaOptions) => Record<string, unknown>;
    };
  };
}

/** The output type of a Standard Schema. */
export type StandardOutput<S extends StandardSchema> = NonNullable<S["~standard"]["types"]>["output"];

function standardOf(value: unknown): Record<string, unknown> | undefined {
  if ((typeof value !== "object" && typeof value !== "function") || value === null) return undefined;
  const props = (value as { "~standard"?: unknown })["~standard"];
  return isPlainObject(props) && props.version === 1 && typeof props.validate === "function" ? props : undefined;
}

/** True for a Standard Schema v1, with or without a JSON Schema side. */
export function isStandardSchema(value: unknown): value is StandardSchema {
  return standardOf(value) !== undefined;
}

/** True for a Standard Schema that also gives its JSON Schema (Standard JSON Schema). */
export function isStandardJsonSchema(value: unknown): value is StandardJsonSchema {
  const jsonSchema = standardOf(value)?.jsonSchema;
  return isPlainObject(jsonSchema) && typeof jsonSchema.input === "function" && typeof jsonSchema.output === "function";
}

/** The library a Standard Schema names itself by (`~standard.vendor`). */
export function vendorOf(value: unknown): string {
  const vendor = standardOf(value)?.vendor;
  return typeof vendor === "string" ? vendor : "unknown";
}

/** The vendor `jsonSchema(…)` of `@toolsmith/core/json-schema` names itself by: its schemas are listed as written. */
export const RAW_JSON_SCHEMA_VENDOR = "toolsmith-json-schema";

const TARGET = { target: "draft-2020-12" } as const;

function unrepresentable(context: { code?: unknown }): never {
  throw new Error(`ArkType's ${String(context.code)} cannot be represented in JSON Schema`);
}

// ArkType's Standard JSON Schema writes {} (anything) for a Date, a morph's output, a non-JSON value: a listed schema
// promising what the validator then rejects. Asked to throw instead, as zod's conversion does.
const OPTIONS: Readonly<Record<string, StandardJsonSchemaOptions>> = {
  arktype: {
    ...TARGET,
    libraryOptions: {
      fallback: Object.fromEntries(
        ["date", "domain", "morph", "proto", "symbolKey", "unit"].map((code) => [code, unrepresentable]),
      ),
    },
  },
};

/** A Standard JSON Schema's JSON Schema, 2020-12, without its `$schema` line (unless `asWritten`). */
export function standardJsonSchema(
  schema: StandardJsonSchema,
  io: "input" | "output",
  asWritten = false,
): Record<string, unknown> {
  const props = schema["~standard"];
  const converted = props.jsonSchema[io](OPTIONS[props.vendor] ?? TARGET);
  if (!isPlainObject(converted)) throw new Error(`its ${io} JSON Schema is not an object`);
  if (asWritten) return converted;
  const { $schema: _dialect, ...rest } = converted;
  return rest;
}

/** The JSON type name of a value, spelled as zod spells what it received. */
function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number" && Number.isNaN(value)) return "NaN";
  return typeof value;
}

function fits(kind: string, type: unknown): boolean {
  const types = Array.isArray(type) ? type : [type];
  return types.some((one) => one === kind || (one === "integer" && kind === "number"));
}

// The JSON Schema node at `path`, through properties and items only (a union or a reference ends the walk).
function nodeAt(root: unknown, path: readonly PropertyKey[]): Record<string, unknown> | undefined {
  let node = root;
  for (const key of path) {
    if (!isPlainObject(node)) return undefined;
    if (isPlainObject(node.properties) && typeof key === "string" && Object.hasOwn(node.properties, key)) {
      node = node.properties[key];
    } else if (typeof key === "number" || (typeof key === "string" && /^\d+$/.test(key))) {
      const index = Number(key);
      node = Array.isArray(node.prefixItems) && index < node.prefixItems.length ? node.prefixItems[index] : node.items;
    } else return undefined;
  }
  return isPlainObject(node) ? node : undefined;
}

function child(parent: unknown, key: PropertyKey): unknown {
  return isPlainObject(parent) || Array.isArray(parent) ? (parent as Record<PropertyKey, unknown>)[key] : undefined;
}

// zod names an integer's type "number" when the value is of another type: so do we.
function typeText(type: unknown): string | undefined {
  const types = Array.isArray(type) ? type : [type];
  if (types.length === 0 || !types.every((one) => typeof one === "string")) return undefined;
  return [...new Set(types.map((one) => (one === "integer" ? "number" : one)))].join(" | ");
}

// A client's key in a path is cut to this many characters: a megabyte-long key is told of, not echoed.
const SEGMENT_TEXT = 64;

// A library's message is cut to this many characters: ArkType and Valibot quote the client's value in it.
const MESSAGE_TEXT = 256;

/** One path segment as text, cut to SEGMENT_TEXT characters. */
export function segmentText(segment: unknown): string {
  const text = String(segment);
  return text.length > SEGMENT_TEXT ? `${text.slice(0, SEGMENT_TEXT)}…` : text;
}

/** What a closed object says of a key it does not list (at the object's path), the key cut as a segment is. */
export function unrecognizedKey(key: unknown): string {
  return `unrecognized key ${JSON.stringify(segmentText(key))}`;
}

// A key of `parent` that its closed JSON Schema `node` does not list (and no pattern might).
function unlisted(node: Record<string, unknown> | undefined, parent: unknown, key: PropertyKey): boolean {
  if (node === undefined || !isPlainObject(parent) || typeof key !== "string" || !Object.hasOwn(parent, key)) {
    return false;
  }
  if (node.additionalProperties !== false && node.unevaluatedProperties !== false) return false;
  if (node.patternProperties !== undefined) return false;
  return !(isPlainObject(node.properties) && Object.hasOwn(node.properties, key));
}

/**
 * One Standard Schema issue read as zod's read: a missing field says "required (expected string)", a value of the
 * wrong JSON type "expected string, received number" (both told from the value and the JSON Schema, whatever the
 * library wrote), any other the library's own message without a leading repeat of its path.
 */
export function readIssue(issue: StandardIssue, value: unknown, jsonSchema: unknown): ValidationIssue {
  // Array.from, not map: a path may be an Array subclass (ArkType's) whose map makes one of its own kind.
  const keys = Array.from(issue.path ?? [], (segment) =>
    typeof segment === "object" && segment !== null ? segment.key : segment,
  );
  const path = keys.length === 0 ? "(root)" : keys.map(segmentText).join(".");
  const parent = keys.slice(0, -1).reduce<unknown>(child, value);
  const last = keys[keys.length - 1];
  const node = nodeAt(jsonSchema, keys);
  const expected = typeText(node?.type);
  const given = last === undefined ? value : child(parent, last);
  // An extra key where the object is closed is told at the object, as zod and Ajv tell it, whatever the library wrote.
  if (last !== undefined && unlisted(nodeAt(jsonSchema, keys.slice(0, -1)), parent, last)) {
    return {
      path: keys.length === 1 ? "(root)" : keys.slice(0, -1).map(segmentText).join("."),
      message: unrecognizedKey(last),
    };
  }
  if (last !== undefined && isPlainObject(parent) && given === undefined) {
    return { path, message: expected ? `required (expected ${expected})` : "required" };
  }
  if (expected !== undefined && !fits(kindOf(given), node?.type)) {
    return { path, message: `expected ${expected}, received ${kindOf(given)}` };
  }
  const message = issue.message.startsWith(`${path} `) ? issue.message.slice(path.length + 1) : issue.message;
  return { path, message: message.length > MESSAGE_TEXT ? `${message.slice(0, MESSAGE_TEXT)}…` : message };
}

/**
 * Turn a Standard Schema's result into a Validation; issues are read against the value and `listed`, the JSON Schema
 * listed for the side validated (an output's issues against the output schema).
 */
export function outcomeOf(
  result: StandardResult<unknown>,
  value: unknown,
  listed: unknown,
  list: (issues: readonly StandardIssue[], read: (issue: StandardIssue) => ValidationIssue) => ValidationIssue[],
): Validation {
  // A library's malformed answer fails closed (an internal error), never a call with whatever it held.
  if (typeof result !== "object" || result === null)
    throw new TypeError("a Standard Schema's validate returned no result object");
  if (result.issues === undefined) return { ok: true, value: result.value };
  if (!Array.isArray(result.issues))
    throw new TypeError("a Standard Schema's validate returned issues that are no list");
  return { ok: false, issues: list(result.issues, (issue) => readIssue(issue, value, listed)) };
}
