import type { RequestContext } from "./context.js";
import type {
  PromptDefinition,
  ResourceDefinition,
  ResourceTemplateDefinition,
  StaticResourceDefinition,
  ToolDefinition,
} from "./definitions.js";
import { DefinitionError, isMcpError, McpError, messageOf } from "./errors.js";
import { ErrorCode, isPlainObject } from "./json-rpc.js";
import { andThen, attempt, isPromiseLike, type MaybePromise } from "./maybe.js";
import { featuresOf, type ProtocolVersion, type RevisionFeatures } from "./protocol.js";
import {
  errorResult,
  isCallToolResult,
  structured,
  toCallToolResult,
  toGetPromptResult,
  toReadResourceResult,
} from "./results.js";
import { type CompiledSchema, compileSchema, describeIssues, type InputSchema } from "./schema-adapter.js";
import type { ErrorReport } from "./server.js";
import type {
  CacheHint,
  CallToolResult,
  GetPromptResult,
  Prompt,
  PromptArgument,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
  ServerCapabilities,
  Tool,
} from "./types.js";
import { isUriTemplate, parseUriTemplate, type UriTemplate } from "./uri-template.js";

const NAME = /^[A-Za-z0-9_.-]{1,64}$/;
const URI_SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;
const NO_ARGUMENTS = { type: "object", properties: {} } as const;

interface CompiledTool {
  readonly definition: ToolDefinition;
  readonly wire: Tool;
  readonly input: CompiledSchema | undefined;
  readonly output: CompiledSchema | undefined;
}

interface CompiledResource {
  readonly definition: StaticResourceDefinition;
  readonly wire: Resource;
}

interface CompiledTemplate {
  readonly definition: ResourceTemplateDefinition;
  readonly template: UriTemplate;
  readonly wire: ResourceTemplate;
  readonly input: CompiledSchema | undefined;
}

interface CompiledPrompt {
  readonly definition: PromptDefinition;
  readonly wire: Prompt;
  readonly args: CompiledSchema | undefined;
  readonly required: readonly string[];
}

/** A read result and the caching hint its resource asked for. */
export interface ReadOutcome {
  result: ReadResourceResult;
  cache: CacheHint | undefined;
}

function checkName(kind: string, name: unknown): string {
  if (typeof name !== "string" || !NAME.test(name)) {
    throw new DefinitionError(
      `${kind} name ${JSON.stringify(name)} is invalid: use 1–64 characters of A-Z, a-z, 0-9, "_", "." and "-"`,
    );
  }
  return name;
}

function optional<T extends object>(fields: T): Partial<T> {
  const out: Partial<T> = {};
  for (const key of Object.keys(fields) as (keyof T)[]) {
    if (fields[key] !== undefined) out[key] = fields[key];
  }
  return out;
}

// Drop what an older revision does not define; the full form is the newest revision's.
function shape<T extends { title?: unknown; icons?: unknown; outputSchema?: unknown }>(
  item: T,
  features: RevisionFeatures,
): T {
  if (features.titlesAndStructuredOutput && features.icons && features.anyStructuredContent) return item;
  const copy = { ...item };
  if (!features.titlesAndStructuredOutput) {
    delete copy.title;
    delete copy.outputSchema;
  }
  if (!features.icons) delete copy.icons;
  if (!features.anyStructuredContent && isPlainObject(copy.outputSchema) && copy.outputSchema.type !== "object") {
    delete copy.outputSchema;
  }
  return copy;
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

function invalidArguments(what: string, issues: string): string {
  return `Invalid arguments for ${what}:\n${issues}`;
}

/**
 * The registry of tools, resources and prompts, and the methods that serve them.
 * Definitions are checked and their schemas compiled once, at registration.
 */
export class Router {
  readonly #tools = new Map<string, CompiledTool>();
  readonly #resources = new Map<string, CompiledResource>();
  readonly #templates = new Map<string, CompiledTemplate>();
  readonly #prompts = new Map<string, CompiledPrompt>();
  readonly #views = new Map<string, unknown[]>();
  #capabilities: ServerCapabilities | undefined;
  readonly #report: (error: unknown, where: ErrorReport) => void;

  constructor(report: (error: unknown, where: ErrorReport) => void = () => {}) {
    this.#report = report;
  }

  #changed(): void {
    this.#views.clear();
    this.#capabilities = undefined;
  }

  addTool(definition: ToolDefinition<InputSchema | undefined>): void {
    const name = checkName("Tool", definition.name);
    if (this.#tools.has(name))
      throw new DefinitionError(`Tool "${name}" is defined twice; give each tool its own name`);
    if (typeof definition.description !== "string" || definition.description.trim() === "") {
      throw new DefinitionError(
        `Tool "${name}" has no description; add one: it is the model's whole manual for the tool`,
      );
    }
    if (typeof definition.handler !== "function") throw new DefinitionError(`Tool "${name}" has no handler function`);
    const input =
      definition.input === undefined ? undefined : compileSchema(definition.input, "input", `Tool "${name}" input`);
    if (input && input.jsonSchema.type !== "object") {
      throw new DefinitionError(
        `Tool "${name}" input must be an object schema (z.object or a shape like { text: z.string() }); MCP requires type "object"`,
      );
    }
    const output =
      definition.output === undefined ? undefined : compileSchema(definition.output, "output", `Tool "${name}" output`);
    const wire: Tool = {
      name,
      ...optional({ title: definition.title }),
      description: definition.description,
      inputSchema: input ? input.jsonSchema : { ...NO_ARGUMENTS },
      ...optional({
        outputSchema: output?.jsonSchema,
        annotations: definition.annotations,
        icons: definition.icons,
        _meta: definition._meta,
      }),
    };
    this.#tools.set(name, { definition: definition as ToolDefinition, wire, input, output });
    this.#changed();
  }

  addResource(definition: ResourceDefinition): void {
    if ("uriTemplate" in definition) this.#addTemplate(definition);
    else this.#addStatic(definition);
    this.#changed();
  }

  #addStatic(definition: StaticResourceDefinition): void {
    const { uri } = definition;
    if (typeof uri !== "string" || !URI_SCHEME.test(uri)) {
      throw new DefinitionError(
        `Resource URI ${JSON.stringify(uri)} is invalid: it needs a scheme, like "notes://all"`,
      );
    }
    if (isUriTemplate(uri)) {
      throw new DefinitionError(
        `Resource URI "${uri}" holds a {variable}; register it with uriTemplate instead of uri`,
      );
    }
    if (this.#resources.has(uri)) {
      throw new DefinitionError(`Resource "${uri}" is defined twice; give each resource its own URI`);
    }
    if (typeof definition.handler !== "function")
      throw new DefinitionError(`Resource "${uri}" has no handler function`);
    const wire: Resource = {
      uri,
      name: definition.name ?? uri,
      ...optional({
        title: definition.title,
        description: definition.description,
        mimeType: definition.mimeType,
        size: definition.size,
        annotations: definition.annotations,
        icons: definition.icons,
        _meta: definition._meta,
      }),
    };
    this.#resources.set(uri, { definition, wire });
  }

  #addTemplate(definition: ResourceTemplateDefinition<InputSchema | undefined>): void {
    const { uriTemplate } = definition;
    if (typeof uriTemplate !== "string" || !URI_SCHEME.test(uriTemplate)) {
      throw new DefinitionError(
        `Resource template ${JSON.stringify(uriTemplate)} is invalid: it needs a scheme, like "notes://{id}"`,
      );
    }
    if (this.#templates.has(uriTemplate))
      throw new DefinitionError(
        `Resource template "${uriTemplate}" is defined twice; give each template its own pattern`,
      );
    if (typeof definition.handler !== "function") {
      throw new DefinitionError(`Resource template "${uriTemplate}" has no handler function`);
    }
    const template = parseUriTemplate(uriTemplate);
    if (template.variables.length === 0) {
      throw new DefinitionError(`Resource template "${uriTemplate}" has no {variable}; register it with uri instead`);
    }
    const input =
      definition.input === undefined
        ? undefined
        : compileSchema(definition.input, "input", `Resource template "${uriTemplate}" input`);
    if (input) checkTemplateInput(uriTemplate, template.variables, input.jsonSchema);
    const wire: ResourceTemplate = {
      uriTemplate,
      name: definition.name ?? uriTemplate,
      ...optional({
        title: definition.title,
        description: definition.description,
        mimeType: definition.mimeType,
        annotations: definition.annotations,
        icons: definition.icons,
        _meta: definition._meta,
      }),
    };
    this.#templates.set(uriTemplate, { definition: definition as ResourceTemplateDefinition, template, wire, input });
  }

  addPrompt(definition: PromptDefinition<InputSchema | undefined>): void {
    const name = checkName("Prompt", definition.name);
    if (this.#prompts.has(name))
      throw new DefinitionError(`Prompt "${name}" is defined twice; give each prompt its own name`);
    if (typeof definition.handler !== "function") throw new DefinitionError(`Prompt "${name}" has no handler function`);
    const args =
      definition.args === undefined ? undefined : compileSchema(definition.args, "input", `Prompt "${name}" args`);
    const properties = isPlainObject(args?.jsonSchema.properties) ? args.jsonSchema.properties : {};
    const required = Array.isArray(args?.jsonSchema.required) ? (args.jsonSchema.required as string[]) : [];
    const argumentList: PromptArgument[] = Object.entries(properties).map(([argName, property]) => {
      if (isPlainObject(property) && property.type !== undefined && property.type !== "string") {
        throw new DefinitionError(
          `Prompt "${name}" argument "${argName}" is not a string schema; prompt arguments are strings on the wire, so use z.string() or z.enum([...])`,
        );
      }
      const description =
        isPlainObject(property) && typeof property.description === "string" ? property.description : undefined;
      return { name: argName, ...optional({ description }), required: required.includes(argName) };
    });
    const wire: Prompt = {
      name,
      ...optional({
        title: definition.title,
        description: definition.description,
        arguments: args ? argumentList : undefined,
        icons: definition.icons,
        _meta: definition._meta,
      }),
    };
    this.#prompts.set(name, { definition: definition as PromptDefinition, wire, args, required });
    this.#changed();
  }

  /** Capabilities follow what is registered (built once per change, shared: do not mutate). */
  capabilities(): ServerCapabilities {
    let capabilities = this.#capabilities;
    if (!capabilities) {
      capabilities = {};
      if (this.#tools.size > 0) capabilities.tools = {};
      if (this.#resources.size > 0 || this.#templates.size > 0) capabilities.resources = {};
      if (this.#prompts.size > 0) capabilities.prompts = {};
      this.#capabilities = capabilities;
    }
    return capabilities;
  }

  #view<T extends object>(kind: string, version: ProtocolVersion, items: Iterable<{ wire: T }>): T[] {
    const key = `${kind} ${version}`;
    let view = this.#views.get(key) as T[] | undefined;
    if (!view) {
      const features = featuresOf(version);
      view = Array.from(items, (item) => shape(item.wire, features));
      this.#views.set(key, view);
    }
    return view;
  }

  listTools(version: ProtocolVersion): Tool[] {
    return this.#view("tools", version, this.#tools.values());
  }

  listResourceTemplates(version: ProtocolVersion): ResourceTemplate[] {
    return this.#view("templates", version, this.#templates.values());
  }

  listPrompts(version: ProtocolVersion): Prompt[] {
    return this.#view("prompts", version, this.#prompts.values());
  }

  listResources(ctx: RequestContext): MaybePromise<Resource[]> {
    const fixed = this.#view("resources", ctx.protocolVersion, this.#resources.values());
    const lists: MaybePromise<Resource[]>[] = [];
    for (const { definition } of this.#templates.values()) if (definition.list) lists.push(definition.list(ctx));
    if (lists.length === 0) return fixed;
    const features = featuresOf(ctx.protocolVersion);
    const join = (found: Resource[][]) => [...fixed, ...found.flat().map((resource) => shape(resource, features))];
    return lists.some(isPromiseLike) ? Promise.all(lists).then(join) : join(lists as Resource[][]);
  }

  callTool(name: string, args: Record<string, unknown> | undefined, ctx: RequestContext): MaybePromise<CallToolResult> {
    const tool = this.#tools.get(name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
    const features = featuresOf(ctx.protocolVersion);
    const value = args ?? {};
    if (!tool.input) return this.#invoke(tool, value, ctx, features);
    return andThen(tool.input.validate(value), (checked) => {
      if (checked.ok) return this.#invoke(tool, checked.value, ctx, features);
      const message = invalidArguments(`tool "${name}"`, describeIssues(checked.issues));
      if (features.validationErrorsAsResults) return errorResult(message);
      throw new McpError(ErrorCode.InvalidParams, message, { issues: checked.issues });
    });
  }

  #invoke(
    tool: CompiledTool,
    value: unknown,
    ctx: RequestContext,
    features: RevisionFeatures,
  ): MaybePromise<CallToolResult> {
    const { name } = tool.wire;
    return attempt(
      () =>
        andThen(tool.definition.handler(value as never, ctx), (raw) =>
          tool.output
            ? this.#checkOutput(tool.output, name, raw, features)
            : shapeToolResult(toCallToolResult(raw), features),
        ),
      (error) => {
        if (isMcpError(error)) throw error;
        this.#report(error, { method: "tools/call", requestId: ctx.requestId, tool: name });
        return errorResult(messageOf(error));
      },
    );
  }

  // With an output schema, what the handler returns is the structured content (unless it is a whole result);
  // the validated value is what goes out, so defaults are filled in and unknown keys are gone, as listed.
  #checkOutput(
    output: CompiledSchema,
    name: string,
    raw: unknown,
    features: RevisionFeatures,
  ): MaybePromise<CallToolResult> {
    const whole = isCallToolResult(raw) ? raw : undefined;
    if (whole?.isError) return shapeToolResult(whole, features);
    const data = whole ? whole.structuredContent : structured(raw).structuredContent;
    return andThen(output.validate(data), (checked) => {
      if (!checked.ok) {
        return errorResult(
          `Tool "${name}" returned structured content that does not match its output schema:\n${describeIssues(checked.issues)}`,
        );
      }
      const result = whole ? { ...whole, structuredContent: checked.value } : structured(checked.value);
      return shapeToolResult(result, features);
    });
  }

  readResource(uri: string, ctx: RequestContext): MaybePromise<ReadOutcome> {
    const notFound = (): never => {
      const code = ctx.era === "stateless" ? ErrorCode.InvalidParams : ErrorCode.ResourceNotFound;
      throw new McpError(code, `Resource not found: ${uri}`, { uri });
    };
    const fixed = this.#resources.get(uri);
    if (fixed) {
      const { definition } = fixed;
      return andThen(definition.handler(ctx), (value) => {
        const result = toReadResourceResult(value, uri, definition.mimeType);
        return result ? { result, cache: definition.cache } : notFound();
      });
    }
    for (const { definition, template, input } of this.#templates.values()) {
      const variables = template.match(uri);
      if (!variables) continue;
      const read = (args: unknown) =>
        andThen(definition.handler(args as never, ctx, uri), (value) => {
          const result = toReadResourceResult(value, uri, definition.mimeType);
          return result ? { result, cache: definition.cache } : notFound();
        });
      if (!input) return read(variables);
      return andThen(input.validate(variables), (checked) => {
        if (checked.ok) return read(checked.value);
        const message = `Invalid variables for resource template "${template.template}":\n${describeIssues(checked.issues)}`;
        throw new McpError(ErrorCode.InvalidParams, message, { uri, issues: checked.issues });
      });
    }
    return notFound();
  }

  getPrompt(
    name: string,
    args: Record<string, string> | undefined,
    ctx: RequestContext,
  ): MaybePromise<GetPromptResult> {
    const prompt = this.#prompts.get(name);
    if (!prompt) throw new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${name}`);
    const { definition } = prompt;
    const run = (value: unknown) =>
      andThen(definition.handler(value as never, ctx), (raw) => toGetPromptResult(raw, definition.description));
    if (!prompt.args) return run(args ?? {});
    const missing = prompt.required.filter((argName) => args?.[argName] === undefined);
    if (missing.length > 0) {
      const list = missing.map((argName) => `"${argName}"`).join(", ");
      throw new McpError(ErrorCode.InvalidParams, `Prompt "${name}" is missing required argument ${list}`, { missing });
    }
    return andThen(prompt.args.validate(args ?? {}), (checked) => {
      if (checked.ok) return run(checked.value);
      throw new McpError(
        ErrorCode.InvalidParams,
        invalidArguments(`prompt "${name}"`, describeIssues(checked.issues)),
        {
          issues: checked.issues,
        },
      );
    });
  }
}

// structuredContent is an object before 2026-07-28 and absent before 2025-06-18; its JSON text stays either way.
function shapeToolResult(result: CallToolResult, features: RevisionFeatures): CallToolResult {
  if (result.isError === undefined) result = { ...result, isError: false };
  if (!("structuredContent" in result)) return result;
  const keep =
    features.anyStructuredContent || (features.titlesAndStructuredOutput && isPlainObject(result.structuredContent));
  if (keep) return result;
  const { structuredContent: _dropped, ...rest } = result;
  return rest;
}
