import { InputRequired } from "./ask.js";
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
  Completer,
  Completion,
  PromptDefinition,
  ResourceDefinition,
  ResourceTemplateDefinition,
  StaticResourceDefinition,
  ToolDefinition,
} from "./definitions.js";
import { DefinitionError, isMcpError, McpError, messageOf } from "./errors.js";
import { ErrorCode } from "./json-rpc.js";
import type { LogEntry } from "./logger.js";
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

/** What can be registered. */
export type RegisteredKind = "tool" | "resource" | "resourceTemplate" | "prompt";

/** What a list change concerns; resource templates count as resources. */
export type ChangeKind = "tools" | "resources" | "prompts";

/**
 * A registered tool, resource, template or prompt, live: switch it off and on, change it, or take it away. Every
 * change tells each open connection that the list changed (handshake era notifications, 2026-07-28 listen streams).
 * @example
 * const admin = server.tool({ name: "wipe", description: "Wipe all", handler: wipe });
 * admin.disable(); // gone from tools/list, and calling it answers as for an unknown tool
 */
export interface Registered<D> {
  /** The name, URI or URI template it is registered under. */
  readonly key: string;
  readonly enabled: boolean;
  /** True once removed: every other call then throws. */
  readonly removed: boolean;
  /** How it is listed, in the newest revision's form (a tool's `inputSchema`, a resource's `uri`, …). */
  describe(): Readonly<Record<string, unknown>>;
  enable(): void;
  disable(): void;
  /** Replace some of its definition's fields; a change that does not compile throws and changes nothing. */
  update(changes: Partial<D>): void;
  remove(): void;
}

interface Entry<C> {
  compiled: C;
  enabled: boolean;
  handle?: Registered<never>;
}

// One registry table per kind: how its entries compile and what they are keyed by.
class Table<D, C extends { definition: unknown; wire: object }> {
  readonly map = new Map<string, Entry<C>>();

  constructor(
    readonly kind: ChangeKind,
    readonly compile: (definition: D) => C,
    readonly keyOf: (compiled: C) => string,
    readonly duplicate: (key: string) => string,
    readonly changed: (kind: ChangeKind) => void,
  ) {}

  /** The enabled entry under `key`. */
  get(key: string): C | undefined {
    const entry = this.map.get(key);
    return entry?.enabled ? entry.compiled : undefined;
  }

  *enabled(): Iterable<C> {
    for (const entry of this.map.values()) if (entry.enabled) yield entry.compiled;
  }

  add(definition: D): Registered<D> {
    const compiled = this.compile(definition);
    const key = this.keyOf(compiled);
    if (this.map.has(key)) throw new DefinitionError(this.duplicate(key));
    const entry: Entry<C> = { compiled, enabled: true };
    this.map.set(key, entry);
    this.changed(this.kind);
    return this.handle(entry);
  }

  /** The live handle of an entry: one per entry, whoever asks. */
  handle(entry: Entry<C>): Registered<D> {
    entry.handle ??= this.#makeHandle(entry) as Registered<never>;
    return entry.handle as Registered<D>;
  }

  #makeHandle(entry: Entry<C>): Registered<D> {
    const table = this;
    let removed = false;
    const live = (what: string) => {
      if (removed) throw new DefinitionError(`${what}: "${table.keyOf(entry.compiled)}" was removed`);
    };
    const set = (enabled: boolean) => {
      live(enabled ? "enable()" : "disable()");
      if (entry.enabled === enabled) return;
      entry.enabled = enabled;
      table.changed(table.kind);
    };
    return {
      get key() {
        return table.keyOf(entry.compiled);
      },
      get enabled() {
        return entry.enabled && !removed;
      },
      get removed() {
        return removed;
      },
      enable: () => set(true),
      disable: () => set(false),
      describe: () => entry.compiled.wire as Readonly<Record<string, unknown>>,
      update(changes) {
        live("update()");
        const compiled = table.compile({ ...(entry.compiled.definition as D), ...changes });
        const before = table.keyOf(entry.compiled);
        const after = table.keyOf(compiled);
        if (after !== before) {
          if (table.map.has(after)) throw new DefinitionError(table.duplicate(after));
          // Re-keyed in place: the list keeps its order.
          const entries = [...table.map];
          table.map.clear();
          for (const [key, value] of entries) table.map.set(key === before ? after : key, value);
        }
        entry.compiled = compiled;
        table.changed(table.kind);
      },
      remove() {
        if (removed) return;
        removed = true;
        table.map.delete(table.keyOf(entry.compiled));
        table.changed(table.kind);
      },
    };
  }
}

/**
 * The registry of tools, resources and prompts, and the methods that serve them.
 * Definitions are checked and their schemas compiled once, at registration.
 */
export class Router {
  readonly #tools: Table<ToolDefinition, CompiledTool>;
  readonly #resources: Table<StaticResourceDefinition, CompiledResource>;
  readonly #templates: Table<ResourceTemplateDefinition, CompiledTemplate>;
  readonly #prompts: Table<PromptDefinition, CompiledPrompt>;
  readonly #views = new Map<string, unknown[]>();
  #capabilities: ServerCapabilities | undefined;
  readonly #report: (entry: LogEntry) => void;
  readonly #onChange: (kind: ChangeKind) => void;

  constructor(report: (entry: LogEntry) => void = () => {}, onChange: (kind: ChangeKind) => void = () => {}) {
    this.#report = report;
    this.#onChange = onChange;
    const changed = (kind: ChangeKind) => {
      this.#views.clear();
      this.#capabilities = undefined;
      this.#onChange(kind);
    };
    this.#tools = new Table(
      "tools",
      (definition) => compileTool(definition as ToolDefinition<InputSchema | undefined>),
      (compiled) => compiled.wire.name,
      (name) => `Tool "${name}" is defined twice; give each tool its own name`,
      changed,
    );
    this.#resources = new Table(
      "resources",
      compileStaticResource,
      (compiled) => compiled.wire.uri,
      (uri) => `Resource "${uri}" is defined twice; give each resource its own URI`,
      changed,
    );
    this.#templates = new Table(
      "resources",
      (definition) => compileTemplate(definition as ResourceTemplateDefinition<InputSchema | undefined>),
      (compiled) => compiled.wire.uriTemplate,
      (uriTemplate) => `Resource template "${uriTemplate}" is defined twice; give each template its own pattern`,
      changed,
    );
    this.#prompts = new Table(
      "prompts",
      (definition) => compilePrompt(definition as PromptDefinition<InputSchema | undefined>),
      (compiled) => compiled.wire.name,
      (name) => `Prompt "${name}" is defined twice; give each prompt its own name`,
      changed,
    );
  }

  addTool(definition: ToolDefinition<InputSchema | undefined>): Registered<ToolDefinition> {
    checkName("Tool", definition.name);
    return this.#tools.add(definition as ToolDefinition);
  }

  addResource(definition: StaticResourceDefinition): Registered<StaticResourceDefinition>;
  addResource(definition: ResourceTemplateDefinition): Registered<ResourceTemplateDefinition>;
  addResource(definition: ResourceDefinition): Registered<ResourceDefinition> {
    if ("uriTemplate" in definition) return this.#templates.add(definition) as Registered<ResourceDefinition>;
    return this.#resources.add(definition) as Registered<ResourceDefinition>;
  }

  /** The handle of what is registered under `key` (a name, URI or URI template), enabled or not. */
  registered(kind: RegisteredKind, key: string): Registered<never> | undefined {
    const table =
      kind === "tool"
        ? this.#tools
        : kind === "prompt"
          ? this.#prompts
          : kind === "resource"
            ? this.#resources
            : this.#templates;
    const entry = (table.map as Map<string, Entry<never>>).get(key);
    return entry ? ((table as unknown as Table<never, never>).handle(entry) as Registered<never>) : undefined;
  }

  addPrompt(definition: PromptDefinition<InputSchema | undefined>): Registered<PromptDefinition> {
    checkName("Prompt", definition.name);
    return this.#prompts.add(definition as PromptDefinition);
  }

  /** Capabilities follow what is registered (built once per change, shared: do not mutate). */
  capabilities(): ServerCapabilities {
    let capabilities = this.#capabilities;
    if (!capabilities) {
      capabilities = { logging: {} };
      if (this.#hasCompleters()) capabilities.completions = {};
      if (this.#prompts.map.size > 0) capabilities.prompts = { listChanged: true };
      if (this.#resources.map.size > 0 || this.#templates.map.size > 0) {
        capabilities.resources = { subscribe: true, listChanged: true };
      }
      if (this.#tools.map.size > 0) capabilities.tools = { listChanged: true };
      this.#capabilities = capabilities;
    }
    return capabilities;
  }

  #hasCompleters(): boolean {
    for (const prompt of this.#prompts.enabled()) if (prompt.completers.size > 0) return true;
    for (const template of this.#templates.enabled()) if (template.completers.size > 0) return true;
    return false;
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
    return this.#view("tools", version, this.#tools.enabled());
  }

  listResourceTemplates(version: ProtocolVersion): ResourceTemplate[] {
    return this.#view("templates", version, this.#templates.enabled());
  }

  listPrompts(version: ProtocolVersion): Prompt[] {
    return this.#view("prompts", version, this.#prompts.enabled());
  }

  listResources(ctx: RequestContext): MaybePromise<Resource[]> {
    const fixed = this.#view("resources", ctx.protocolVersion, this.#resources.enabled());
    const lists: MaybePromise<Resource[]>[] = [];
    for (const { definition } of this.#templates.enabled()) if (definition.list) lists.push(definition.list(ctx));
    if (lists.length === 0) return fixed;
    const features = featuresOf(ctx.protocolVersion);
    const join = (found: Resource[][]) => [...fixed, ...found.flat().map((resource) => shape(resource, features))];
    return lists.some(isPromiseLike) ? Promise.all(lists).then(join) : join(lists as Resource[][]);
  }

  callTool(name: string, args: Record<string, unknown> | undefined, ctx: RequestContext): MaybePromise<CallToolResult> {
    const tool = this.#tools.get(name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
    const features = featuresOf(ctx.protocolVersion);
    // A tool that takes no arguments sees none, whatever was sent (as unknown keys are dropped for those that do).
    if (!tool.input) return this.#invoke(tool, {}, ctx, features);
    return andThen(tool.input.validate(args ?? {}), (checked) => {
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
        if (isMcpError(error) || error instanceof InputRequired) throw error;
        // A tool reporting failure with a plain Error is expected: the model reads it; not an incident. A TypeError
        // and the like are more likely bugs: a warning.
        const expected = error instanceof Error && (error.constructor === Error || isMcpError(error));
        // A handler stopped by a cancellation (its AbortError, an abandoned question) did what it was asked to.
        const stopped = ctx.signal.aborted;
        this.#report({
          level: stopped ? "debug" : expected ? "info" : "warning",
          message: `tool ${name} (id ${JSON.stringify(ctx.requestId)}) failed: ${error instanceof Error ? String(error) : messageOf(error)}`,
          error,
          method: "tools/call",
          requestId: ctx.requestId,
          tool: name,
        });
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
      throw new McpError(featuresOf(ctx.protocolVersion).resourceNotFound, `Resource not found: ${uri}`, { uri });
    };
    const fixed = this.#resources.get(uri);
    if (fixed) {
      const { definition } = fixed;
      return andThen(definition.handler(ctx), (value) => {
        const result = toReadResourceResult(value, uri, definition.mimeType);
        return result ? { result, cache: definition.cache } : notFound();
      });
    }
    for (const { definition, template, input } of this.#templates.enabled()) {
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
    const missing = prompt.required.filter((argName) => args === undefined || !Object.hasOwn(args, argName));
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

  /** `completion/complete`: suggestions for a prompt argument or a template variable. */
  complete(
    ref: { type: string; name?: string; uri?: string },
    argument: { name: string; value: string },
    known: Readonly<Record<string, string>>,
    ctx: RequestContext,
  ): MaybePromise<{ values: string[]; total?: number; hasMore?: boolean }> {
    let completers: ReadonlyMap<string, Completer> | undefined;
    if (ref.type === "ref/prompt") {
      completers = this.#prompts.get(ref.name ?? "")?.completers;
      if (!completers) throw new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${ref.name}`);
    } else if (ref.type === "ref/resource") {
      completers = this.#templates.get(ref.uri ?? "")?.completers;
      if (!completers) throw new McpError(ErrorCode.InvalidParams, `Unknown resource template: ${ref.uri}`);
    } else {
      throw new McpError(ErrorCode.InvalidParams, `Invalid ref type: ${JSON.stringify(ref.type)}`);
    }
    const completer = completers.get(argument.name);
    if (!completer) return { values: [], total: 0, hasMore: false };
    return andThen(completer(argument.value, { arguments: known, ctx }), toCompletion);
  }
}

const MAX_COMPLETIONS = 100;

function toCompletion(found: Completion): { values: string[]; total?: number; hasMore?: boolean } {
  const all = (Array.isArray(found) ? found : Array.isArray(found?.values) ? found.values : []).map(String);
  const values = all.slice(0, MAX_COMPLETIONS);
  const total = Array.isArray(found) ? all.length : (found.total ?? all.length);
  const hasMore = Array.isArray(found) ? all.length > MAX_COMPLETIONS : (found.hasMore ?? total > values.length);
  return { values, total, hasMore };
}
