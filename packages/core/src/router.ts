import {
  type CompiledPrompt,
  type CompiledResource,
  type CompiledTemplate,
  type CompiledTool,
  checkName,
  compilePrompt,
  compileStaticResource,
  compileTemplate,
  compileTool,
} from "./compile-definitions.js";
import type { RequestContext } from "./context.js";
import type {
  PromptDefinition,
  ResourceDefinition,
  ResourceTemplateDefinition,
  StaticResourceDefinition,
  ToolDefinition,
} from "./definitions.js";
import { DefinitionError, isMcpError, McpError, messageOf } from "./errors.js";
import { ErrorCode } from "./json-rpc.js";
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
import { shape, shapeToolResult } from "./revision-shape.js";
import { type CompiledSchema, describeIssues, type InputSchema } from "./schema-adapter.js";
import type { ErrorReport } from "./server.js";
import type {
  CacheHint,
  CallToolResult,
  GetPromptResult,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
  ServerCapabilities,
  Tool,
} from "./types.js";

/** A read result and the caching hint its resource asked for. */
export interface ReadOutcome {
  result: ReadResourceResult;
  cache: CacheHint | undefined;
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
    this.#tools.set(name, compileTool(definition));
    this.#changed();
  }

  addResource(definition: ResourceDefinition): void {
    if ("uriTemplate" in definition) this.#addTemplate(definition);
    else this.#addStatic(definition);
    this.#changed();
  }

  #addStatic(definition: StaticResourceDefinition): void {
    const compiled = compileStaticResource(definition);
    const { uri } = compiled.wire;
    if (this.#resources.has(uri)) {
      throw new DefinitionError(`Resource "${uri}" is defined twice; give each resource its own URI`);
    }
    this.#resources.set(uri, compiled);
  }

  #addTemplate(definition: ResourceTemplateDefinition<InputSchema | undefined>): void {
    const compiled = compileTemplate(definition);
    const { uriTemplate } = compiled.wire;
    if (this.#templates.has(uriTemplate)) {
      throw new DefinitionError(
        `Resource template "${uriTemplate}" is defined twice; give each template its own pattern`,
      );
    }
    this.#templates.set(uriTemplate, compiled);
  }

  addPrompt(definition: PromptDefinition<InputSchema | undefined>): void {
    const name = checkName("Prompt", definition.name);
    if (this.#prompts.has(name)) {
      throw new DefinitionError(`Prompt "${name}" is defined twice; give each prompt its own name`);
    }
    this.#prompts.set(name, compilePrompt(definition));
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
