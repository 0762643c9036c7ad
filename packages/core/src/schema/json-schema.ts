import { Ajv2020, MissingRefError, type ValidateFunction } from "ajv/dist/2020.js";
import formats from "ajv-formats";
import { MAX_DEPTH } from "../wire/depth.js";
import { DefinitionError } from "../wire/errors.js";
import { isPlainObject } from "../wire/json-rpc.js";
import type { FromJsonSchema, JsonSchemaObject } from "./json-schema-infer.js";
import { issuesOf, type JsonSchemaIssue } from "./json-schema-issues.js";
import { linearPattern, PatternError } from "./linear-regex.js";
import { RAW_JSON_SCHEMA_VENDOR } from "./standard-schema.js";

// `@toolsmith/core/json-schema`: a raw JSON Schema 2020-12 as a Standard Schema, validated by Ajv (an optional peer:
// only a server that imports this entry loads it).

export type { FromJsonSchema, JsonSchemaObject, SchemaSide } from "./json-schema-infer.js";
export type { JsonSchemaIssue } from "./json-schema-issues.js";

/** What `validate` answers: the value (defaults filled in, on a copy) or the issues. */
export type JsonSchemaResult<Output> =
  | { readonly value: Output; readonly issues?: undefined }
  | { readonly issues: readonly JsonSchemaIssue[] };

/** The JSON Schema side of Standard JSON Schema v1: the schema for a target (only `"draft-2020-12"`). */
export interface JsonSchemaConverter {
  readonly input: (options: { readonly target: string }) => Record<string, unknown>;
  readonly output: (options: { readonly target: string }) => Record<string, unknown>;
}

/**
 * A raw JSON Schema wrapped by `jsonSchema`: a Standard Schema v1 (`~standard.validate`) and a Standard JSON
 * Schema v1 (`~standard.jsonSchema`), so core takes it wherever it takes a schema.
 */
export interface JsonSchema<Input = unknown, Output = Input> {
  readonly "~standard": {
    readonly version: 1;
    readonly vendor: "toolsmith-json-schema";
    readonly validate: (value: unknown) => JsonSchemaResult<Output>;
    readonly jsonSchema: JsonSchemaConverter;
    readonly types?: { readonly input: Input; readonly output: Output } | undefined;
  };
}

const DIALECT = "https://json-schema.org/draft/2020-12/schema";

// Two Ajv instances, made on first use: one checks a schema against the 2020-12 meta-schema, the other compiles it
// knowing no schema but the one given, so a `$ref` outside it fails to compile instead of being looked up.
let ajvs: { meta: Ajv2020; compiler: Ajv2020 } | undefined;

// `pattern` and `patternProperties` run by RE2, in time linear in the client's string (Ajv's default, a RegExp,
// backtracks: 33 characters against `^(a+)+$` held a process for 33 s). Ajv keys compiled patterns by `toString`.
const linearRegExp = Object.assign(
  (source: string) => {
    const compiled = linearPattern(source);
    return { test: (text: string) => compiled.test(text), toString: () => `re2:${source}` };
  },
  { code: "linearPattern" },
);

function instances(): { meta: Ajv2020; compiler: Ajv2020 } {
  if (ajvs) return ajvs;
  const compiler = new Ajv2020({
    meta: false,
    validateSchema: false,
    addUsedSchema: false,
    // Unknown keywords and formats are a mistake at registration (`x-` keywords are the author's annotations).
    strict: true,
    strictTypes: false,
    strictTuples: false,
    strictRequired: false,
    // As zod: defaults filled in, no coercion, the first failure told (allErrors lets one value make unbounded work).
    useDefaults: true,
    coerceTypes: false,
    allErrors: false,
    // A missing "constructor" or "toString" is missing, not Object.prototype's.
    ownProperties: true,
    code: { regExp: linearRegExp },
    logger: false,
  });
  // CommonJS: the default import is module.exports, which is the plugin and carries it as `default` too.
  formats.default(compiler);
  // 2020-12's internationalized formats, which ajv-formats lacks, are annotations (as the spec allows), not mistakes.
  for (const name of ["iri", "iri-reference", "idn-email", "idn-hostname"]) compiler.addFormat(name, true);
  // Ajv resolves `#name` through `$anchor` but, strict, calls the keyword itself unknown: a core 2020-12 keyword.
  compiler.addKeyword("$anchor");
  ajvs = { meta: new Ajv2020({ logger: false }), compiler };
  return ajvs;
}

/** What a walk of the schema tells once: its own `x-` keywords, and how deep into a value its defaults write. */
interface Shape {
  annotations: Set<string>;
  /** How deep its defaults write, and (as deep) where it names a property Object.prototype has. */
  depth: number;
  prototypeNames: boolean;
  refs: boolean;
}

// Keywords whose subschemas apply one level down in the value; the rest apply at the same level.
const DOWN = new Set(["items", "additionalProperties", "unevaluatedProperties", "unevaluatedItems", "contains"]);
const DOWN_MAPS = new Set(["properties", "patternProperties"]);
const VALUES = new Set(["enum", "const", "default", "examples"]);

function walk(node: unknown, level: number, shape: Shape, depth: number): void {
  if (depth > 256 || (!isPlainObject(node) && !Array.isArray(node))) return;
  if (Array.isArray(node)) {
    for (const item of node) walk(item, level, shape, depth + 1);
    return;
  }
  for (const [key, child] of Object.entries(node)) {
    if (key.startsWith("x-")) shape.annotations.add(key);
    if (key === "default") shape.depth = Math.max(shape.depth, level);
    if (key === "$ref" || key === "$dynamicRef") shape.refs = true;
    if (VALUES.has(key)) continue;
    if (DOWN_MAPS.has(key) && isPlainObject(child)) {
      // Ajv skips such a property without a word: refused rather than left unchecked.
      if (Object.hasOwn(child, "__proto__"))
        throw new Error(`names a property "__proto__" in ${key}, which Ajv cannot check`);
      if (Object.keys(child).some((name) => name in Object.prototype)) {
        shape.prototypeNames = true;
        shape.depth = Math.max(shape.depth, level + 1);
      }
      for (const sub of Object.values(child)) walk(sub, level + 1, shape, depth + 2);
    } else if (key === "prefixItems" && Array.isArray(child)) {
      for (const sub of child) walk(sub, level + 1, shape, depth + 2);
    } else walk(child, DOWN.has(key) ? level + 1 : level, shape, depth + 1);
  }
}

// The containers of `value` down to `levels` deep, copied (own keys kept own, `__proto__` included), so defaults
// are written on the copy: neither the client's arguments nor a handler's returned object change. With `bare`, the
// objects are made without a prototype (listed in it) so Ajv sees no inherited "constructor" or "toString".
function copied(value: unknown, levels: number, bare: object[] | undefined): unknown {
  if (levels <= 0 || typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) return value.map((item) => copied(item, levels - 1, bare));
  const copy: Record<string, unknown> = bare || Object.getPrototypeOf(value) === null ? Object.create(null) : {};
  if (bare && Object.getPrototypeOf(value) !== null) bare.push(copy);
  for (const key of Object.keys(value)) {
    const item = copied((value as Record<string, unknown>)[key], levels - 1, bare);
    Object.defineProperty(copy, key, { value: item, enumerable: true, writable: true, configurable: true });
  }
  return copy;
}

function reasonOf(error: unknown): string {
  if (error instanceof PatternError) return `has a ${error.message}`;
  if (error instanceof MissingRefError) {
    return `refers to "${error.missingRef}", which is not inside it: remote references are never fetched; put the schema under $defs and refer to it as "#/$defs/…"`;
  }
  const message = error instanceof Error ? error.message : String(error);
  if (message.startsWith("strict mode: unknown keyword")) {
    return `${message.replace("strict mode: ", "has an ")} (a typo? start annotations of your own with "x-")`;
  }
  // Ajv's other strict-mode refusals (a `default` it would never apply, at the root or in a union's branch).
  if (message.startsWith("strict mode: ")) return `is refused by Ajv's strict mode: ${message.slice(13)}`;
  return message;
}

interface Built {
  listed: Record<string, unknown>;
  validate: (value: unknown) => JsonSchemaResult<unknown>;
}

function build(schema: unknown): Built {
  if (!isPlainObject(schema)) {
    throw new Error(`is not a JSON Schema object (got ${schema === null ? "null" : typeof schema})`);
  }
  const dialect = schema.$schema;
  if (dialect !== undefined && dialect !== DIALECT && dialect !== `${DIALECT}#`) {
    throw new Error(
      `declares "$schema": ${JSON.stringify(dialect)}; only JSON Schema 2020-12 is taken (remove "$schema", or use "${DIALECT}")`,
    );
  }
  const { meta, compiler } = instances();
  if (!meta.validateSchema(schema)) {
    throw new Error(`is not valid JSON Schema 2020-12: ${meta.errorsText(meta.errors, { dataVar: "schema" })}`);
  }
  const shape: Shape = { annotations: new Set(), depth: 0, prototypeNames: false, refs: false };
  walk(schema, 0, shape, 0);
  for (const keyword of shape.annotations) if (!compiler.getKeyword(keyword)) compiler.addKeyword({ keyword });
  // The listed schema is the user's (its `$schema` too, 2020-12 if any), and a copy: a later change changes nothing.
  const listed = structuredClone(schema);
  const check: ValidateFunction = compiler.compile(listed);
  // The compiled function keeps what it needs; the instance need not hold every schema ever given.
  compiler.removeSchema(listed);
  // A recursive schema's defaults may sit at any depth: the copy goes as deep as core lets such a value nest.
  const levels = shape.depth === 0 ? 0 : shape.refs ? MAX_DEPTH + 1 : shape.depth;
  const prototypeNames = shape.prototypeNames;
  return {
    listed,
    validate(value) {
      const bare: object[] | undefined = prototypeNames ? [] : undefined;
      const subject = levels === 0 ? value : copied(value, levels, bare);
      const ok = check(subject);
      // The handler gets plain objects again, once Ajv has read them.
      if (bare) for (const object of bare) Object.setPrototypeOf(object, Object.prototype);
      return ok ? { value: subject } : { issues: issuesOf(check.errors ?? [], subject, listed) };
    },
  };
}

/**
 * Take a raw JSON Schema (2020-12) where core takes a schema: tool inputs and outputs, prompt arguments, elicitation
 * forms, template variables. It is checked and compiled once, here; a schema that is not valid JSON Schema, declares
 * another dialect, uses an unknown keyword or format, refers outside itself, or has a `pattern` (or
 * `patternProperties` key) that a linear-time engine cannot run is a `DefinitionError` at registration. Patterns run
 * on RE2, never backtracking. Types come from the schema's literal type; `jsonSchema<T>(schema)` states them instead.
 * @example
 * ```ts source="examples/schema.ts#jsonSchema"
 * const input = jsonSchema({ type: "object", properties: { city: { type: "string" } }, required: ["city"] });
 * server.tool({ name: "weather", description: "Weather", input, handler: ({ city }) => `Sunny in ${city}` });
 * ```
 */
export function jsonSchema<T = never, const S extends JsonSchemaObject = JsonSchemaObject>(
  schema: S,
): JsonSchema<
  [T] extends [never] ? FromJsonSchema<S, "input"> : T,
  [T] extends [never] ? FromJsonSchema<S, "output"> : T
> {
  let built: Built | undefined;
  let failure: DefinitionError | undefined;
  try {
    built = build(schema);
  } catch (error) {
    // Told where the schema is registered, which names what it belongs to.
    failure = new DefinitionError(`the JSON Schema ${reasonOf(error)}`, { cause: error });
  }
  const jsonSchemaFor = (options: { readonly target: string }): Record<string, unknown> => {
    if (!built) throw failure;
    if (options?.target !== "draft-2020-12") {
      throw new Error(`a raw JSON Schema is JSON Schema 2020-12; target "${options?.target}" is not offered`);
    }
    return structuredClone(built.listed);
  };
  return {
    "~standard": {
      version: 1,
      vendor: RAW_JSON_SCHEMA_VENDOR,
      validate: built
        ? (built.validate as never)
        : () => {
            throw failure;
          },
      jsonSchema: { input: jsonSchemaFor, output: jsonSchemaFor },
    },
  };
}
