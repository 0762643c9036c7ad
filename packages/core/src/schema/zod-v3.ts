import * as z3 from "zod/v3";
import { ignoreOverride, zodPatterns, zodToJsonSchema } from "zod-to-json-schema";
import { isPlainObject } from "../wire/json-rpc.js";
import { registerSchemaAdapter, withoutDialect } from "./adapters.js";
import { SURELY_NODES } from "./compiled-schema.js";
import { SCHEMA_MAPS as KEYWORD_MAPS, SCHEMA_LISTS, SCHEMA_ONE } from "./keywords.js";
import {
  isZodV3,
  type SchemaAdapter,
  type Validation,
  type ValidationIssue,
  type ZodV3Schema,
} from "./schema-adapter.js";
import { segmentText } from "./standard-schema.js";
import { eachKey, listIssues } from "./validation-issues.js";

// Importing this module adds zod v3 support: `import "@toolsmith/core/zod-v3";`.

// zod-to-json-schema speaks draft-07 tuples and `definitions`; rewrite those keywords into 2020-12. Only schema
// positions are rewritten: names inside `properties` and values inside `const`, `enum`, `default` stay as they are.
const SCHEMA_MAPS = new Set([...KEYWORD_MAPS, "definitions", "$defs"]);

function toDraft2020(node: unknown, root: unknown): unknown {
  if (!isPlainObject(node)) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "items" && Array.isArray(value)) {
      out.prefixItems = value.map((one) => toDraft2020(one, root));
      if (!("additionalItems" in node)) out.items = false;
    } else if (key === "additionalItems") {
      out.items = toDraft2020(value, root);
    } else if (key === "$ref" && typeof value === "string") {
      out.$ref = pointerIn2020(value, root);
    } else if (SCHEMA_MAPS.has(key) && isPlainObject(value)) {
      const map: Record<string, unknown> = {};
      for (const [name, schema] of Object.entries(value)) map[name] = toDraft2020(schema, root);
      out[key === "definitions" ? "$defs" : key] = map;
    } else if (SCHEMA_LISTS.has(key) && Array.isArray(value)) {
      out[key] = value.map((one) => toDraft2020(one, root));
    } else if (SCHEMA_ONE.has(key)) {
      out[key] = toDraft2020(value, root);
    } else {
      out[key] = value;
    }
  }
  return out;
}

// A reference into the draft-07 document (zod-to-json-schema points at a reused schema's first place), as the same
// place in the rewritten one: a tuple's `items/<n>` is `prefixItems/<n>`, `additionalItems` is `items`.
function pointerIn2020(ref: string, root: unknown): string {
  if (!ref.startsWith("#/")) return ref;
  let node: unknown = root;
  let inMap = false;
  const out = ref
    .slice(2)
    .split("/")
    .map((segment) => {
      const key = segment.replace(/~1/g, "/").replace(/~0/g, "~");
      const schema = !inMap && isPlainObject(node) ? node : undefined;
      node = isPlainObject(node) || Array.isArray(node) ? (node as Record<string, unknown>)[key] : undefined;
      inMap = schema !== undefined && SCHEMA_MAPS.has(key);
      if (schema === undefined) return segment;
      if (key === "items" && Array.isArray(schema.items)) return "prefixItems";
      if (key === "additionalItems") return "items";
      return key === "definitions" ? "$defs" : segment;
    });
  return `#/${out.join("/")}`;
}

let ownV3: ReadonlySet<string> | undefined;

/** zod v3 through zod-to-json-schema, rewritten to JSON Schema 2020-12. */
export const zodV3Adapter: SchemaAdapter = {
  accepts: isZodV3,
  object: (shape) => z3.object(shape as z3.ZodRawShape),
  toJsonSchema(schema, io) {
    const converted = zodToJsonSchema(schema as ZodV3Schema, {
      target: "jsonSchema7",
      effectStrategy: io === "input" ? "input" : "any",
      pipeStrategy: io,
      override: (def) => unrepresentable(def) ?? ignoreOverride,
    }) as Record<string, unknown>;
    return withoutDialect(toDraft2020(converted, converted) as Record<string, unknown>);
  },
  validate(schema, value) {
    const v3 = schema as ZodV3Schema;
    try {
      return outcome(v3.safeParse(value));
    } catch (error) {
      // zod v3 throws on async refinements in a synchronous parse; take the async path instead.
      if (!(error instanceof Error && /async/i.test(error.message))) throw error;
      return v3.safeParseAsync(value).then(outcome);
    }
  },
  // zod-to-json-schema lists zod's formats with these patterns: zod's own, left to it.
  ownPatterns: () =>
    (ownV3 ??= new Set(
      Object.values(zodPatterns).map((regex) => (typeof regex === "function" ? regex() : regex).source),
    )),
  surely(schema, object) {
    if (object && (schema as ZodV3Schema)._def.typeName !== "ZodObject") return false;
    try {
      return represents(schema as ZodV3Schema, new Set(), { left: Math.floor(SURELY_NODES / 3) });
    } catch {
      // A getter that throws (a shape's, a default's) is for the conversion to report, at registration.
      return false;
    }
  },
};

type Def = z3.ZodTypeDef & Record<string, unknown> & { typeName?: string };

// What zod-to-json-schema surely converts, told by walking the definition: the common types, none of them a date or a
// bigint (which `unrepresentable` refuses) or anything that runs code of the schema's (lazy, effects, catch); each
// lists as at most three schema nodes, within SURELY_NODES over the walk.
function represents(schema: ZodV3Schema, seen: Set<ZodV3Schema>, walk: { left: number }): boolean {
  // Met again (reused, or a cycle through getters) or past the budget: converted at registration to measure it.
  if (seen.has(schema) || --walk.left < 0) return false;
  seen.add(schema);
  const def = schema?._def as Def | undefined;
  switch (def?.typeName) {
    case "ZodString":
      // An author's regex is checked at registration (RE2 must be able to run it): converted at once.
      return !(def.checks as { kind: string }[] | undefined)?.some((check) => check.kind === "regex");
    case "ZodNumber":
    case "ZodBoolean":
    case "ZodNull":
    case "ZodAny":
    case "ZodUnknown":
    case "ZodEnum":
    case "ZodNativeEnum":
      return true;
    case "ZodLiteral":
      return typeof def.value !== "bigint";
    case "ZodOptional":
    case "ZodNullable":
    case "ZodReadonly":
      return represents(def.innerType as ZodV3Schema, seen, walk);
    case "ZodDefault":
      // The conversion calls it too: one that throws is the conversion's to report.
      // One JSON cannot hold (a BigInt) throws here: converted at registration, which refuses it.
      JSON.stringify((def.defaultValue as () => unknown)());
      return represents(def.innerType as ZodV3Schema, seen, walk);
    case "ZodArray":
      return represents(def.type as ZodV3Schema, seen, walk);
    case "ZodTuple":
      return (
        (def.items as ZodV3Schema[]).every((item) => represents(item, seen, walk)) &&
        (def.rest == null || represents(def.rest as ZodV3Schema, seen, walk))
      );
    case "ZodUnion":
    case "ZodDiscriminatedUnion":
      return [...(def.options as Iterable<ZodV3Schema>)].every((option) => represents(option, seen, walk));
    case "ZodRecord":
      return represents(def.keyType as ZodV3Schema, seen, walk) && represents(def.valueType as ZodV3Schema, seen, walk);
    case "ZodObject": {
      const shape = (def.shape as () => Record<string, ZodV3Schema>)();
      const catchall = def.catchall as ZodV3Schema;
      if (catchall._def.typeName !== "ZodNever" && !represents(catchall, seen, walk)) return false;
      return Object.values(shape).every((field) => represents(field, seen, walk));
    }
    default:
      return false;
  }
}

function outcome(result: z3.SafeParseReturnType<unknown, unknown>): Validation {
  return result.success
    ? { ok: true, value: result.data }
    : { ok: false, issues: listIssues(eachKey(result.error.issues), toIssue) };
}

function toIssue(issue: z3.ZodIssue): ValidationIssue {
  // Each segment cut as every library's is: a client's megabyte-long key is told of, not echoed.
  const path = issue.path.length === 0 ? "(root)" : issue.path.map(segmentText).join(".");
  const missing = issue.code === "invalid_type" && issue.received === "undefined";
  return { path, message: missing ? `required (expected ${issue.expected})` : issue.message };
}

// Types whose JSON Schema would promise strings or numbers the validator then rejects, and values (a BigInt literal
// or default) the converter would put in it that JSON cannot hold, so every tools/list would fail to serialize.
function unrepresentable(
  def: z3.ZodTypeDef & { typeName?: string; coerce?: boolean; value?: unknown; defaultValue?: () => unknown },
): undefined {
  if ((def.typeName === "ZodDate" || def.typeName === "ZodBigInt") && !def.coerce) {
    throw new Error(`${def.typeName === "ZodDate" ? "Date" : "BigInt"} cannot be represented in JSON Schema`);
  }
  if (def.typeName === "ZodLiteral" && typeof def.value === "bigint") {
    throw new Error("a BigInt literal cannot be represented in JSON Schema");
  }
  if (def.typeName === "ZodDefault" && def.defaultValue) {
    const value = def.defaultValue();
    try {
      JSON.stringify(value);
    } catch (error) {
      throw new Error(`the default cannot be represented in JSON Schema (${String(error)})`);
    }
  }
  return undefined;
}

registerSchemaAdapter(zodV3Adapter);
