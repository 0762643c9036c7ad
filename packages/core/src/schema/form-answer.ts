import { isPlainObject } from "../wire/json-rpc.js";
import { type Choice, choicesIn } from "./elicitation-form.js";
import type { Validation, ValidationIssue } from "./schema-adapter.js";

// The client's answer to a form written as raw JSON Schema, checked as a zod form's answer is: each named field must
// be what the form asks (its type, choices and bounds), a required one present; fields the form did not name are
// dropped. The form was checked flat before it was sent (checkRawForm), so only flat fields are met here.

const quoted = (values: readonly unknown[]) => values.map((value) => JSON.stringify(value)).join("|");

function number(value: unknown): value is number {
  return typeof value === "number" && Number.isFinite(value);
}

// The values a single choice may take: its enum, or its titled constants; undefined for a free value.
function allowedValues(schema: Record<string, unknown>): readonly unknown[] | undefined {
  if (Array.isArray(schema.enum)) return schema.enum;
  const choices: Choice[] | undefined = choicesIn(schema.oneOf) ?? choicesIn(schema.anyOf);
  return choices?.map((choice) => choice.const);
}

function bounds(value: number, schema: Record<string, unknown>, unit: string): string | undefined {
  if (number(schema.minimum) && value < schema.minimum) return `too small: expected at least ${schema.minimum}${unit}`;
  if (number(schema.maximum) && value > schema.maximum) return `too big: expected at most ${schema.maximum}${unit}`;
  return undefined;
}

function lengths(length: number, schema: Record<string, unknown>, min: string, max: string, unit: string) {
  return bounds(length, { minimum: schema[min], maximum: schema[max] }, unit);
}

// Why `value` does not fit the flat field `schema`, or undefined when it does.
function unfit(value: unknown, schema: Record<string, unknown>): string | undefined {
  if (schema.type === "array") {
    if (!Array.isArray(value)) return "expected an array";
    const items = isPlainObject(schema.items) ? allowedValues(schema.items) : undefined;
    const wrong = items ? value.find((item) => !items.includes(item)) : undefined;
    if (wrong !== undefined) return `expected items of ${quoted(items ?? [])}`;
    return lengths(value.length, schema, "minItems", "maxItems", " items");
  }
  const values = allowedValues(schema);
  if (values) return values.includes(value) ? undefined : `expected one of ${quoted(values)}`;
  switch (schema.type) {
    case "string":
      if (typeof value !== "string") return "expected a string";
      return lengths([...value].length, schema, "minLength", "maxLength", " characters");
    case "number":
    case "integer":
      if (!number(value) || (schema.type === "integer" && !Number.isInteger(value)))
        return `expected ${schema.type === "integer" ? "an integer" : "a number"}`;
      return bounds(value, schema, "");
    case "boolean":
      return typeof value === "boolean" ? undefined : "expected a boolean";
    default:
      return undefined;
  }
}

/** Check the content of an accepted answer against the (flat) raw form it answers; keep only the fields it names. */
export function checkRawAnswer(
  requestedSchema: Record<string, unknown>,
  content: unknown,
): Validation<Record<string, unknown>> {
  const properties = requestedSchema.properties as Record<string, unknown>;
  const required: unknown[] = Array.isArray(requestedSchema.required) ? requestedSchema.required : [];
  const given = isPlainObject(content) ? content : {};
  const issues: ValidationIssue[] = [];
  for (const name of Object.keys(properties)) {
    if (Object.hasOwn(given, name) && given[name] !== undefined) continue;
    if (required.includes(name)) issues.push({ path: name, message: "required" });
  }
  const value: Record<string, unknown> = {};
  for (const name of Object.keys(given)) {
    if (!Object.hasOwn(properties, name)) continue;
    const schema = properties[name] as Record<string, unknown>;
    const why = unfit(given[name], schema);
    if (why === undefined)
      Object.defineProperty(value, name, { value: given[name], enumerable: true, writable: true, configurable: true });
    else issues.push({ path: name, message: why });
  }
  return issues.length > 0 ? { ok: false, issues } : { ok: true, value };
}
