import { type CacheHint, takeCacheHint } from "../protocol/cache-hints.js";
import { type TaskPolicy, taskPolicyOf } from "../protocol/tasks.js";
import { compileSchema } from "../schema/adapters.js";
import { DEFERRED_NODES } from "../schema/compiled-schema.js";
import { readable } from "../schema/inline-refs.js";
import type { CompiledSchema, InputSchema } from "../schema/schema-adapter.js";
import { isUriTemplate, parseUriTemplate, type UriTemplate } from "../schema/uri-template.js";
import { DefinitionError } from "../wire/errors.js";
import { isPlainObject } from "../wire/json-rpc.js";
import type { Prompt, PromptArgument, Resource, ResourceTemplate, Tool } from "../wire/types.js";
import type {
  Completer,
  PromptDefinition,
  ResourceTemplateDefinition,
  StaticResourceDefinition,
  ToolDefinition,
} from "./definitions.js";

// Definitions checked and compiled into what the router serves: once, at registration (a tool's JSON Schemas on
// first use, when registration could tell they exist). Every mistake is a DefinitionError that says what to change.

const NAME = /^[A-Za-z0-9_.-]{1,64}$/;
const URI_SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;
const NO_ARGUMENTS = { type: "object", properties: {} } as const;

/** What a registry table keeps: the definition, its key (name, URI or URI template) and how it is listed. */
interface Compiled<D, W> {
  readonly definition: D;
  readonly key: string;
  readonly wire: W;
}

export interface CompiledTool extends Compiled<ToolDefinition, Tool> {
  readonly input: CompiledSchema | undefined;
  readonly output: CompiledSchema | undefined;
  /** Whether and how it may run as a task (undefined: never); never listed. */
  readonly task: TaskPolicy | undefined;
}

export interface CompiledResource extends Compiled<StaticResourceDefinition, Resource> {
  /** The definition's `cache` as checked at registration; never read again from the definition. */
  readonly cache: CacheHint | undefined;
}

export interface CompiledTemplate extends Compiled<ResourceTemplateDefinition, ResourceTemplate> {
  readonly template: UriTemplate;
  readonly input: CompiledSchema | undefined;
  readonly completers: ReadonlyMap<string, Completer>;
  /** The definition's `cache` and `listCache` as checked at registration; never read again from the definition. */
  readonly cache: CacheHint | undefined;
  readonly listCache: CacheHint | undefined;
}

export interface CompiledPrompt extends Compiled<PromptDefinition, Prompt> {
  readonly args: CompiledSchema | undefined;
  readonly required: readonly string[];
  readonly completers: ReadonlyMap<string, Completer>;
}

// Completers must name arguments that exist: a typo would otherwise complete nothing, silently.
function compileCompleters(
  what: string,
  complete: Readonly<Record<string, Completer>> | undefined,
  names: readonly string[],
  noun: string,
): ReadonlyMap<string, Completer> {
  const completers = new Map<string, Completer>();
  if (complete === undefined) return completers;
  if (!isPlainObject(complete))
    throw new DefinitionError(`${what} complete must be an object of functions by ${noun} name`);
  for (const [name, completer] of Object.entries(complete)) {
    if (!names.includes(name)) {
      throw new DefinitionError(
        `${what} has a completer for "${name}", which is not one of its ${noun}s (${names.map((n) => `"${n}"`).join(", ") || "none"})`,
      );
    }
    if (typeof completer !== "function") throw new DefinitionError(`${what} completer for "${name}" is not a function`);
    completers.set(name, completer);
  }
  return completers;
}

/** A tool or prompt name, checked. */
export function checkName(kind: string, name: unknown): string {
  if (typeof name !== "string" || !NAME.test(name)) {
    throw new DefinitionError(
      `${kind} name ${JSON.stringify(name)} is invalid: use 1–64 characters of A-Z, a-z, 0-9, "_", "." and "-"`,
    );
  }
  return name;
}

/** Every field of the wire type `T`, set or not: a field added to `T` fails to compile until a compile fills it in. */
type Fields<T> = { [K in keyof Required<T>]: T[K] };

/** Only the fields that are set, in their order. */
export function optional<T extends object>(fields: Fields<T>): T {
  const out: Partial<T> = {};
  for (const key of Object.keys(fields) as (keyof T)[]) {
    if (fields[key] !== undefined) out[key] = fields[key];
  }
  return out as T;
}

function checkUri(kind: string, uri: unknown, example: string): string {
  if (typeof uri !== "string" || !URI_SCHEME.test(uri)) {
    throw new DefinitionError(`${kind} ${JSON.stringify(uri)} is invalid: it needs a scheme, like "${example}"`);
  }
  return uri;
}

// The fields a resource and a resource template share, as the wire lists them.
function described(
  definition: StaticResourceDefinition | ResourceTemplateDefinition<InputSchema | undefined>,
): Fields<Omit<ResourceTemplate, "uriTemplate" | "name">> {
  const { title, description, mimeType, annotations, icons, _meta } = definition;
  return { title, description, mimeType, annotations, icons, _meta };
}

function checkHandler(what: string, handler: unknown, guard?: unknown, use?: unknown): void {
  if (typeof handler !== "function") throw new DefinitionError(`${what} has no handler function`);
  if (guard !== undefined && typeof guard !== "function") {
    throw new DefinitionError(`${what} guard must be a function of the request context that returns true to allow`);
  }
  if (use !== undefined && (!Array.isArray(use) || use.some((one) => typeof one !== "function"))) {
    throw new DefinitionError(`${what} use must be an array of middleware functions: (operation, next) => result`);
  }
}

/** The default bound on a listed tool schema's size: schema nodes once reused parts are inlined. */
export const MAX_SCHEMA_NODES = 10_000;

// Inlining reused parts may grow a schema exponentially (a part used twice per level): past the bound it is refused
// here, at registration. A deferred schema is surely within any bound of at least DEFERRED_NODES, so stays deferred.
function checkSize(schema: CompiledSchema | undefined, what: string, bound: number): void {
  if (schema === undefined || (schema.deferred && bound >= DEFERRED_NODES)) return;
  const { nodes } = schema;
  if (nodes <= bound) return;
  throw new DefinitionError(
    `${what}'s JSON Schema lists ${nodes.toLocaleString("en-US")} schema nodes once its reused parts are inlined, over the bound of ${bound.toLocaleString("en-US")}; reuse fewer sub-schemas, or raise createServer({ maxSchemaNodes })`,
  );
}

export function compileTool(
  definition: ToolDefinition<InputSchema | undefined>,
  maxSchemaNodes = MAX_SCHEMA_NODES,
): CompiledTool {
  const name = checkName("Tool", definition.name);
  if (typeof definition.description !== "string" || definition.description.trim() === "") {
    throw new DefinitionError(
      `Tool "${name}" has no description; add one: it is the model's whole manual for the tool`,
    );
  }
  checkHandler(`Tool "${name}"`, definition.handler, definition.guard, definition.use);
  const input =
    definition.input === undefined ? undefined : compileSchema(definition.input, "input", `Tool "${name}" input`);
  if (input && !input.isObject) {
    throw new DefinitionError(
      `Tool "${name}" input must be an object schema (z.object or a shape like { text: z.string() }); MCP requires type "object"`,
    );
  }
  const output =
    definition.output === undefined ? undefined : compileSchema(definition.output, "output", `Tool "${name}" output`);
  checkSize(input, `Tool "${name}" input`, maxSchemaNodes);
  checkSize(output, `Tool "${name}" output`, maxSchemaNodes);
  const task = taskPolicyOf(`Tool "${name}"`, definition.task);
  return new ToolCompiled(definition as ToolDefinition, input, output, task);
}

// A tool as listed is made on first need (its first list, call or describe()), with its JSON Schemas: registering
// thousands of tools makes none of them. Its fields are taken now, as a wire made now would have them.
class ToolCompiled implements CompiledTool {
  readonly key: string;
  readonly #title: string | undefined;
  readonly #description: string;
  readonly #annotations: Tool["annotations"];
  readonly #icons: Tool["icons"];
  readonly #meta: Tool["_meta"];
  #wire: Tool | undefined;

  constructor(
    readonly definition: ToolDefinition,
    readonly input: CompiledSchema | undefined,
    readonly output: CompiledSchema | undefined,
    readonly task: TaskPolicy | undefined,
  ) {
    this.key = definition.name;
    this.#title = definition.title;
    this.#description = definition.description;
    this.#annotations = definition.annotations;
    this.#icons = definition.icons;
    this.#meta = definition._meta;
  }

  get wire(): Tool {
    this.#wire ??= optional<Tool>({
      name: this.key,
      title: this.#title,
      description: this.#description,
      inputSchema: this.input ? this.input.jsonSchema : { ...NO_ARGUMENTS },
      outputSchema: this.output?.jsonSchema,
      annotations: this.#annotations,
      icons: this.#icons,
      _meta: this.#meta,
    });
    return this.#wire;
  }
}

export function compileStaticResource(definition: StaticResourceDefinition): CompiledResource {
  const uri = checkUri("Resource URI", definition.uri, "notes://all");
  if (isUriTemplate(uri)) {
    throw new DefinitionError(`Resource URI "${uri}" holds a {variable}; register it with uriTemplate instead of uri`);
  }
  // A template's fields on a fixed URI would be silently unread (JavaScript callers, or a cast, get past the types).
  const { input, list, complete, listCache } = definition as Partial<ResourceTemplateDefinition>;
  if (input !== undefined || list !== undefined || complete !== undefined || listCache !== undefined) {
    throw new DefinitionError(
      `Resource "${uri}" is a fixed URI, so it takes neither input, list, complete nor listCache; those are for templates like "notes://{id}"`,
    );
  }
  checkHandler(`Resource "${uri}"`, definition.handler, definition.guard, definition.use);
  const cache = takeCacheHint(definition.cache, `Resource "${uri}" cache`);
  const wire = optional<Resource>({
    uri,
    name: definition.name ?? uri,
    size: definition.size,
    ...described(definition),
  });
  return { definition, key: uri, wire, cache };
}

export function compileTemplate(definition: ResourceTemplateDefinition<InputSchema | undefined>): CompiledTemplate {
  const uriTemplate = checkUri("Resource template", definition.uriTemplate, "notes://{id}");
  checkHandler(`Resource template "${uriTemplate}"`, definition.handler, definition.guard, definition.use);
  const cache = takeCacheHint(definition.cache, `Resource template "${uriTemplate}" cache`);
  const listCache = takeCacheHint(definition.listCache, `Resource template "${uriTemplate}" listCache`);
  const template = parseUriTemplate(uriTemplate);
  if (template.variables.length === 0) {
    throw new DefinitionError(`Resource template "${uriTemplate}" has no {variable}; register it with uri instead`);
  }
  const input =
    definition.input === undefined
      ? undefined
      : compileSchema(definition.input, "input", `Resource template "${uriTemplate}" input`);
  if (input) checkTemplateInput(uriTemplate, template.variables, input.jsonSchema);
  const wire = optional<ResourceTemplate>({
    uriTemplate,
    name: definition.name ?? uriTemplate,
    ...described(definition),
  });
  const completers = compileCompleters(
    `Resource template "${uriTemplate}"`,
    definition.complete,
    template.variables,
    "variable",
  );
  return {
    definition: definition as ResourceTemplateDefinition,
    key: uriTemplate,
    template,
    wire,
    input,
    completers,
    cache,
    listCache,
  };
}

// A template's input schema must have exactly the template's variables as its fields.
function checkTemplateInput(uriTemplate: string, variables: readonly string[], schema: Record<string, unknown>): void {
  const properties = isPlainObject(schema.properties) ? Object.keys(schema.properties) : [];
  const problems = [
    ...variables
      .filter((name) => !properties.includes(name))
      .map((name) => `{${name}} has no field in the input schema`),
    ...properties
      .filter((name) => !variables.includes(name))
      .map((name) => `field "${name}" is not a template variable`),
  ];
  if (schema.type !== "object") problems.push("the input schema must be an object of the variables");
  if (problems.length > 0) {
    throw new DefinitionError(
      `Resource template "${uriTemplate}" input does not match its variables: ${problems.join("; ")}; make the schema's fields exactly ${variables.map((name) => `"${name}"`).join(", ")}`,
    );
  }
}

export function compilePrompt(definition: PromptDefinition<InputSchema | undefined>): CompiledPrompt {
  const name = checkName("Prompt", definition.name);
  checkHandler(`Prompt "${name}"`, definition.handler, definition.guard, definition.use);
  const args =
    definition.args === undefined ? undefined : compileSchema(definition.args, "input", `Prompt "${name}" args`);
  // A raw JSON Schema's `$ref`s followed, so an argument defined under `$defs` is checked and described too.
  const read = args ? readable(args.jsonSchema) : undefined;
  const properties = isPlainObject(read?.properties) ? read.properties : {};
  const required = Array.isArray(read?.required) ? (read.required as string[]) : [];
  const argumentList: PromptArgument[] = Object.entries(properties).map(([argName, property]) => {
    if (isPlainObject(property) && property.type !== undefined && property.type !== "string") {
      throw new DefinitionError(
        `Prompt "${name}" argument "${argName}" is not a string schema; prompt arguments are strings on the wire, so use a string schema (zod: z.string() or z.enum([...]); ArkType: "string"; Valibot: v.string(); JSON Schema: { type: "string" })`,
      );
    }
    const text = (key: "title" | "description") =>
      isPlainObject(property) && typeof property[key] === "string" ? property[key] : undefined;
    return optional<PromptArgument>({
      name: argName,
      title: text("title"),
      description: text("description"),
      required: required.includes(argName),
    });
  });
  const wire = optional<Prompt>({
    name,
    title: definition.title,
    description: definition.description,
    arguments: args ? argumentList : undefined,
    icons: definition.icons,
    _meta: definition._meta,
  });
  const completers = compileCompleters(
    `Prompt "${name}"`,
    definition.complete,
    argumentList.map((argument) => argument.name),
    "argument",
  );
  return { definition: definition as PromptDefinition, key: name, wire, args, required, completers };
}
