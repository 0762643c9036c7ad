import { nameLogger, type RequestContext, withLogger } from "../context/context.js";
import type { LogEntry } from "../context/logger.js";
import { type Middleware, runOwn } from "../middleware/compose.js";
import { CACHE_HINT, type CacheHint, COMPUTED_LIST_CACHE, narrower } from "../protocol/cache-hints.js";
import { errorResult, toGetPromptResult, toReadResourceResult } from "../protocol/results.js";
import { featuresOf } from "../protocol/revision.js";
import { shape } from "../protocol/revision-shape.js";
import { describeIssues, type InputSchema } from "../schema/schema-adapter.js";
import { McpError } from "../wire/errors.js";
import { ErrorCode, isPlainObject } from "../wire/json-rpc.js";
import { andThen, isPromiseLike, type MaybePromise } from "../wire/maybe.js";
import type {
  CallToolResult,
  GetPromptResult,
  Prompt,
  ReadResourceResult,
  Resource,
  ResourceTemplate,
  ServerCapabilities,
  Tool,
} from "../wire/types.js";
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
} from "./compile.js";
import type {
  Completer,
  Completion,
  Guard,
  PromptDefinition,
  ResourceDefinition,
  ResourceTemplateDefinition,
  StaticResourceDefinition,
  ToolDefinition,
} from "./definitions.js";
import { insideModule, localParams, Modules, type Mount, NO_PARAMS } from "./mounts.js";
import { runTool } from "./run-tool.js";
import { type Audience, type ChangeKind, type Registered, type RegisteredKind, Table } from "./table.js";
import { allows, Views } from "./views.js";

/** A read result, and under `CACHE_HINT` the caching hint its resource asked for. */
export type ReadOutcome = ReadResourceResult & { [CACHE_HINT]?: CacheHint };

/** A request's params as they came: what a mounted module's middleware sees, renamed for the module. */
type Params = Readonly<Record<string, unknown>>;

/** What `completion/complete` refers to. */
type CompleteRef = { type: string; name?: string; uri?: string };

/** Suggestions, as `completion/complete` answers them. */
type CompletionResult = { values: string[]; total?: number; hasMore?: boolean };

/** The transport's own check of a tools/call against the tool it reaches (a tool this caller may use). */
export type ToolCheck = (tool: Tool) => void;

function invalidArguments(what: string, issues: string): string {
  return `Invalid arguments for ${what}:\n${issues}`;
}

export type { Audience, ChangeKind, Registered, RegisteredKind } from "./table.js";

/**
 * The registry of tools, resources and prompts, and the methods that serve them.
 * Definitions are checked and their schemas compiled once, at registration.
 */
export class Router {
  readonly #tools: Table<ToolDefinition, CompiledTool>;
  readonly #resources: Table<StaticResourceDefinition, CompiledResource>;
  readonly #templates: Table<ResourceTemplateDefinition, CompiledTemplate>;
  readonly #prompts: Table<PromptDefinition, CompiledPrompt>;
  readonly #views = new Views();
  readonly #modules = new Modules<Router>((kind) => this.#table(kind));
  #capabilities: ServerCapabilities | undefined;
  readonly #report: (entry: LogEntry) => void;
  readonly #onChange: (kind: ChangeKind, audience: Audience) => void;

  constructor(
    report: (entry: LogEntry) => void = () => {},
    onChange: (kind: ChangeKind, audience: Audience) => void = () => {},
  ) {
    this.#report = report;
    this.#onChange = onChange;
    const changed = (kind: ChangeKind, audience: Audience) => this.#changed(kind, audience);
    this.#tools = new Table(
      "tools",
      (definition) => compileTool(definition as ToolDefinition<InputSchema | undefined>),
      (compiled) => compiled.wire.name,
      (name) => `Tool "${name}" is defined twice; give each tool its own name`,
      changed,
      (name) => this.#modules.admit("tool", name),
    );
    this.#resources = new Table(
      "resources",
      compileStaticResource,
      (compiled) => compiled.wire.uri,
      (uri) => `Resource "${uri}" is defined twice; give each resource its own URI`,
      changed,
      (uri) => this.#modules.admit("resource", uri),
    );
    this.#templates = new Table(
      "resources",
      (definition) => compileTemplate(definition as ResourceTemplateDefinition<InputSchema | undefined>),
      (compiled) => compiled.wire.uriTemplate,
      (uriTemplate) => `Resource template "${uriTemplate}" is defined twice; give each template its own pattern`,
      changed,
      (uriTemplate) => this.#modules.admit("resourceTemplate", uriTemplate),
    );
    this.#prompts = new Table(
      "prompts",
      (definition) => compilePrompt(definition as PromptDefinition<InputSchema | undefined>),
      (compiled) => compiled.wire.name,
      (name) => `Prompt "${name}" is defined twice; give each prompt its own name`,
      changed,
      (name) => this.#modules.admit("prompt", name),
    );
  }

  #changed(kind: ChangeKind, audience: Audience): void {
    this.#views.clear();
    this.#capabilities = undefined;
    this.#onChange(kind, audience);
  }

  #changedAll(): void {
    for (const kind of ["tools", "resources", "prompts"] as const) this.#changed(kind, undefined);
  }

  #table(kind: RegisteredKind): Table<never, never> {
    const table =
      kind === "tool"
        ? this.#tools
        : kind === "prompt"
          ? this.#prompts
          : kind === "resource"
            ? this.#resources
            : this.#templates;
    return table as unknown as Table<never, never>;
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
    const table = this.#table(kind);
    const entry = table.map.get(key);
    if (entry) return table.handle(entry) as Registered<never>;
    return this.#modules.registered(kind, key);
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
      for (const { router } of this.#modules.list) {
        const theirs = router.capabilities();
        if (theirs.completions) capabilities.completions = {};
        if (theirs.prompts) capabilities.prompts = { listChanged: true };
        if (theirs.resources) capabilities.resources = { subscribe: true, listChanged: true };
        if (theirs.tools) capabilities.tools = { listChanged: true };
      }
      this.#capabilities = capabilities;
    }
    return capabilities;
  }

  #hasCompleters(): boolean {
    for (const prompt of this.#prompts.enabled()) if (prompt.completers.size > 0) return true;
    for (const template of this.#templates.enabled()) if (template.completers.size > 0) return true;
    return false;
  }

  listTools(ctx: RequestContext, params: Params = NO_PARAMS): MaybePromise<Tool[]> {
    const own = this.#views.visible("tools", ctx, this.#tools, this.#report);
    return this.#andModules(own, "tools/list", "tools", ctx, params, (router, local) => router.listTools(ctx, local));
  }

  listResourceTemplates(ctx: RequestContext, params: Params = NO_PARAMS): MaybePromise<ResourceTemplate[]> {
    const own = this.#views.visible("templates", ctx, this.#templates, this.#report);
    return this.#andModules(own, "resources/templates/list", "resourceTemplates", ctx, params, (router, local) =>
      router.listResourceTemplates(ctx, local),
    );
  }

  listPrompts(ctx: RequestContext, params: Params = NO_PARAMS): MaybePromise<Prompt[]> {
    const own = this.#views.visible("prompts", ctx, this.#prompts, this.#report);
    return this.#andModules(own, "prompts/list", "prompts", ctx, params, (router, local) =>
      router.listPrompts(ctx, local),
    );
  }

  // This router's own list, then each module's as its middleware answers it.
  #andModules<T>(
    own: T[],
    method: string,
    key: string,
    ctx: RequestContext,
    params: Params,
    list: (router: Router, local: Params) => MaybePromise<T[]>,
  ): MaybePromise<T[]> {
    if (this.#modules.list.length === 0) return own;
    return andThen(this.#modules.listed(method, key, ctx, params, list), (found) => [...own, ...(found as T[])]);
  }

  listResources(ctx: RequestContext, params: Params = NO_PARAMS): MaybePromise<Resource[]> {
    const fixed = this.#views.visible("resources", ctx, this.#resources, this.#report);
    const lists: MaybePromise<Resource[]>[] = [];
    for (const { definition, wire } of this.#templates.enabled()) {
      if (definition.list && allows(definition.guard, ctx, this.#report)) {
        lists.push(definition.list(withLogger(ctx, wire.name)));
      }
    }
    if (this.#modules.list.length > 0) {
      const theirs = this.#modules.listed("resources/list", "resources", ctx, params, (router, local) =>
        router.listResources(ctx, local),
      );
      lists.push(theirs as MaybePromise<Resource[]>);
    }
    if (lists.length === 0) return fixed;
    const features = featuresOf(ctx.protocolVersion);
    const join = (found: Resource[][]) => [...fixed, ...found.flat().map((resource) => shape(resource, features))];
    return lists.some(isPromiseLike) ? Promise.all(lists).then(join) : join(lists as Resource[][]);
  }

  /**
   * The caching hint of `resources/list` when a template's `list` computes part of it per request (each such
   * template's `listCache`, else 0 ms private; the narrowest wins, mounted modules included); undefined when static.
   */
  resourcesListCache(): CacheHint | undefined {
    let hint: CacheHint | undefined;
    for (const { definition } of this.#templates.enabled()) {
      if (definition.list) hint = narrower(hint, definition.listCache ?? COMPUTED_LIST_CACHE);
    }
    for (const { router } of this.#modules.list) {
      const theirs = router.resourcesListCache();
      if (theirs) hint = narrower(hint, theirs);
    }
    return hint;
  }

  /**
   * True when what `kind`'s list shows depends on the caller: a guard here, or a module's guard or middleware. (A
   * template's `list`, given the caller's context, makes `resources/list` private through `resourcesListCache`.)
   */
  dependsOnCaller(kind: ChangeKind): boolean {
    const tables: Table<never, never>[] =
      kind === "tools"
        ? [this.#tools as never]
        : kind === "prompts"
          ? [this.#prompts as never]
          : [this.#resources as never, this.#templates as never];
    for (const table of tables) {
      for (const entry of table.enabled())
        if ((entry as { definition: { guard?: Guard } }).definition.guard) return true;
    }
    return this.#modules.list.some((mount) => mount.middleware().length > 0 || mount.router.dependsOnCaller(kind));
  }

  /**
   * Serve another router's tools and prompts under `prefix.` and its resources as they are. A name or URI that would
   * be served twice fails now, naming both sources.
   */
  mount(prefix: string, router: Router, source: string, middleware: () => readonly Middleware[] = () => []): void {
    this.#modules.add(prefix, router, router.#modules, source, middleware);
    this.#changedAll();
  }

  /** A mounted module changed: what this server shows changed with it, for the same audience. */
  mountedChanged(kind: ChangeKind, audience: Audience): void {
    this.#changed(kind, audience);
  }

  // A name under a module's prefix is that module's, served or not (no parent may take one): it runs inside the
  // module's middleware, named as the module knows it, as it would standalone.
  #inModule<T extends object>(
    kind: "tool" | "prompt",
    name: string,
    params: Params,
    ctx: RequestContext,
    serve: (router: Router, rest: string, local: Params) => MaybePromise<T>,
  ): MaybePromise<T> | undefined {
    const inModule = this.#modules.find(name);
    if (!inModule) return undefined;
    const { mount, rest } = inModule;
    const local = localParams(params, rest);
    const [method, operation] = kind === "tool" ? (["tools/call", "call"] as const) : (["prompts/get", "get"] as const);
    return insideModule(mount, method, operation, local, ctx, () => serve(mount.router, rest, local));
  }

  /** `tools/call`; `params` as the request had them, `check` the transport's own (HTTP: `Mcp-Param-*` headers). */
  callTool(
    name: string,
    args: Record<string, unknown> | undefined,
    ctx: RequestContext,
    params: Params = NO_PARAMS,
    check?: ToolCheck,
  ): MaybePromise<CallToolResult> {
    return this.#call(name, args, ctx, params, check, name);
  }

  // `shown`: the name the client sent, which every answer about the tool uses.
  #call(
    name: string,
    args: Record<string, unknown> | undefined,
    ctx: RequestContext,
    params: Params,
    check: ToolCheck | undefined,
    shown: string,
  ): MaybePromise<CallToolResult> {
    const tool = this.#tools.get(name);
    if (!tool || !allows(tool.definition.guard, ctx, this.#report)) {
      const served = this.#inModule("tool", name, params, ctx, (router, rest, local) =>
        router.#call(rest, args, ctx, local, check, shown),
      );
      if (served) return served;
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${shown}`);
    }
    // Only once the tool is known to be this caller's: a refused one answers as unknown, whatever was sent.
    check?.(tool.wire);
    const { use } = tool.definition;
    if (use === undefined) return this.#runTool(tool, args, ctx, shown);
    const local = params === NO_PARAMS ? { name, arguments: args } : params;
    return runOwn(use, "tools/call", "call", local, ctx, () => this.#runTool(tool, args, ctx, shown));
  }

  #runTool(
    tool: CompiledTool,
    args: Record<string, unknown> | undefined,
    ctx: RequestContext,
    shown: string,
  ): MaybePromise<CallToolResult> {
    const features = featuresOf(ctx.protocolVersion);
    // A tool that takes no arguments sees none, whatever was sent (as unknown keys are dropped for those that do).
    if (!tool.input) return runTool(tool, {}, ctx, features, this.#report);
    return andThen(tool.input.validate(args ?? {}), (checked) => {
      if (checked.ok) return runTool(tool, checked.value, ctx, features, this.#report);
      const message = invalidArguments(`tool "${shown}"`, describeIssues(checked.issues));
      if (features.validationErrorsAsResults) return errorResult(message);
      throw new McpError(ErrorCode.InvalidParams, message, { issues: checked.issues });
    });
  }

  /** True when `uri` is served for this caller (a resource updates only a subscriber who could read it). */
  canRead(uri: string, ctx: RequestContext): boolean {
    return this.#resolve(uri, ctx, NO_PARAMS) !== undefined;
  }

  readResource(uri: string, ctx: RequestContext, params: Params = NO_PARAMS): MaybePromise<ReadOutcome> {
    const read = this.#resolve(uri, ctx, params);
    if (read) return read();
    throw new McpError(featuresOf(ctx.protocolVersion).resourceNotFound, `Resource not found: ${uri}`, { uri });
  }

  // Who serves `uri` for this caller: a static resource, a template here, or one of a mounted module's (inside its
  // middleware). A URI names no module, so only one that serves it to this caller is asked.
  #resolve(uri: string, ctx: RequestContext, params: Params): (() => MaybePromise<ReadOutcome>) | undefined {
    const notFound = (): never => {
      throw new McpError(featuresOf(ctx.protocolVersion).resourceNotFound, `Resource not found: ${uri}`, { uri });
    };
    const outcome = (result: ReadResourceResult | undefined, cache: CacheHint | undefined): ReadOutcome => {
      if (!result) return notFound();
      return cache ? { ...result, [CACHE_HINT]: cache } : result;
    };
    // A resource's own middleware runs around its read, seeing it as the router was asked (or by its URI).
    const own = (use: readonly Middleware[] | undefined, read: () => MaybePromise<ReadOutcome>) =>
      use === undefined
        ? read
        : () => runOwn(use, "resources/read", "read", params === NO_PARAMS ? { uri } : params, ctx, read);
    const fixed = this.#resources.get(uri);
    if (fixed && allows(fixed.definition.guard, ctx, this.#report)) {
      const { definition, wire } = fixed;
      return own(definition.use, () => {
        nameLogger(ctx, wire.name);
        return andThen(definition.handler(ctx), (value) =>
          outcome(toReadResourceResult(value, uri, definition.mimeType), definition.cache),
        );
      });
    }
    for (const { definition, template, input, wire } of this.#templates.enabled()) {
      if (!allows(definition.guard, ctx, this.#report)) continue;
      const variables = template.match(uri);
      if (!variables) continue;
      const read = (args: unknown) => {
        nameLogger(ctx, wire.name);
        return andThen(definition.handler(args as never, ctx, uri), (value) =>
          outcome(toReadResourceResult(value, uri, definition.mimeType), definition.cache),
        );
      };
      if (!input) return own(definition.use, () => read(variables));
      return own(definition.use, () =>
        andThen(input.validate(variables), (checked) => {
          if (checked.ok) return read(checked.value);
          const message = `Invalid variables for resource template "${template.template}":\n${describeIssues(checked.issues)}`;
          throw new McpError(ErrorCode.InvalidParams, message, { uri, issues: checked.issues });
        }),
      );
    }
    for (const mount of this.#modules.list) {
      const read = mount.router.#resolve(uri, ctx, params);
      if (read) return () => insideModule(mount, "resources/read", "read", params, ctx, read);
    }
    return undefined;
  }

  getPrompt(
    name: string,
    args: Record<string, string> | undefined,
    ctx: RequestContext,
    params: Params = NO_PARAMS,
  ): MaybePromise<GetPromptResult> {
    return this.#get(name, args, ctx, params, name);
  }

  #get(
    name: string,
    args: Record<string, string> | undefined,
    ctx: RequestContext,
    params: Params,
    shown: string,
  ): MaybePromise<GetPromptResult> {
    const prompt = this.#prompts.get(name);
    if (!prompt || !allows(prompt.definition.guard, ctx, this.#report)) {
      const served = this.#inModule("prompt", name, params, ctx, (router, rest, local) =>
        router.#get(rest, args, ctx, local, shown),
      );
      if (served) return served;
      throw new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${shown}`);
    }
    const { use } = prompt.definition;
    if (use === undefined) return this.#runPrompt(prompt, args, ctx, shown);
    const local = params === NO_PARAMS ? { name, arguments: args } : params;
    return runOwn(use, "prompts/get", "get", local, ctx, () => this.#runPrompt(prompt, args, ctx, shown));
  }

  #runPrompt(
    prompt: CompiledPrompt,
    args: Record<string, string> | undefined,
    ctx: RequestContext,
    shown: string,
  ): MaybePromise<GetPromptResult> {
    const { definition } = prompt;
    const run = (value: unknown) =>
      andThen(definition.handler(value as never, ctx), (raw) => toGetPromptResult(raw, definition.description));
    if (!prompt.args) return run(args ?? {});
    const missing = prompt.required.filter((argName) => args === undefined || !Object.hasOwn(args, argName));
    if (missing.length > 0) {
      const list = missing.map((argName) => `"${argName}"`).join(", ");
      throw new McpError(ErrorCode.InvalidParams, `Prompt "${shown}" is missing required argument ${list}`, {
        missing,
      });
    }
    return andThen(prompt.args.validate(args ?? {}), (checked) => {
      if (checked.ok) return run(checked.value);
      throw new McpError(
        ErrorCode.InvalidParams,
        invalidArguments(`prompt "${shown}"`, describeIssues(checked.issues)),
        {
          issues: checked.issues,
        },
      );
    });
  }

  /** `completion/complete`: suggestions for a prompt argument or a template variable. */
  complete(
    ref: CompleteRef,
    argument: { name: string; value: string },
    known: Readonly<Record<string, string>>,
    ctx: RequestContext,
    params: Params = NO_PARAMS,
  ): MaybePromise<CompletionResult> {
    return this.#complete(ref, argument, known, ctx, params, ref.name);
  }

  #complete(
    ref: CompleteRef,
    argument: { name: string; value: string },
    known: Readonly<Record<string, string>>,
    ctx: RequestContext,
    params: Params,
    shown: string | undefined,
  ): MaybePromise<CompletionResult> {
    let completers: ReadonlyMap<string, Completer> | undefined;
    let use: readonly Middleware[] | undefined;
    if (ref.type === "ref/prompt") {
      const prompt = this.#prompts.get(ref.name ?? "");
      if (!prompt) {
        const inModule = this.#modules.find(ref.name ?? "");
        if (inModule) {
          const { mount, rest } = inModule;
          const local = { ...ref, name: rest };
          return this.#completeIn(mount, { ...params, ref: local }, ctx, (localParams) =>
            mount.router.#complete(local, argument, known, ctx, localParams, shown),
          );
        }
      }
      completers = prompt && allows(prompt.definition.guard, ctx, this.#report) ? prompt.completers : undefined;
      if (!completers) throw new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${shown}`);
      use = prompt?.definition.use;
      // A completer logs under its prompt's name, as the client knows it (`github.triage` from a module).
      nameLogger(ctx, shown ?? "");
    } else if (ref.type === "ref/resource") {
      const template = this.#templates.get(ref.uri ?? "");
      if (!template) {
        // A template's URI names no module: only one that offers it to this caller is asked.
        const owner = this.#modules.list.find((mount) => mount.router.#offers(ref.uri ?? "", ctx));
        if (owner) {
          return this.#completeIn(owner, params, ctx, (local) =>
            owner.router.#complete(ref, argument, known, ctx, local, shown),
          );
        }
      }
      completers = template && allows(template.definition.guard, ctx, this.#report) ? template.completers : undefined;
      if (!completers) throw new McpError(ErrorCode.InvalidParams, `Unknown resource template: ${ref.uri}`);
      use = template?.definition.use;
      if (template) nameLogger(ctx, template.wire.name);
    } else {
      throw new McpError(ErrorCode.InvalidParams, `Invalid ref type: ${JSON.stringify(ref.type)}`);
    }
    const completer = completers.get(argument.name);
    const suggest = (): MaybePromise<CompletionResult> =>
      completer
        ? andThen(completer(argument.value, { arguments: known, ctx }), toCompletion)
        : { values: [], total: 0, hasMore: false };
    if (use === undefined) return suggest();
    // The prompt's or template's own middleware sees `{ completion }`, as a server's middleware does.
    const local = params === NO_PARAMS ? { ref, argument } : params;
    const serve = () => andThen(suggest(), (completion) => ({ completion }));
    return andThen(runOwn(use, "completion/complete", "complete", local, ctx, serve), (result) =>
      completionOf(result, "a middleware of this prompt or template"),
    );
  }

  // A module's completion, inside its middleware, which sees `{ completion }` as it would standalone.
  #completeIn(
    mount: Mount<Router>,
    local: Params,
    ctx: RequestContext,
    complete: (local: Params) => MaybePromise<CompletionResult>,
  ): MaybePromise<CompletionResult> {
    const serve = () => andThen(complete(local), (completion) => ({ completion }));
    return andThen(insideModule(mount, "completion/complete", "complete", local, ctx, serve), (result) =>
      completionOf(result, `a middleware of ${mount.source}`),
    );
  }

  // Whether the template `uriTemplate` is served to this caller, here or in a module below.
  #offers(uriTemplate: string, ctx: RequestContext): boolean {
    const template = this.#templates.get(uriTemplate);
    if (template) return allows(template.definition.guard, ctx, this.#report);
    return this.#modules.list.some((mount) => mount.router.#offers(uriTemplate, ctx));
  }
}

// What a middleware answered for completion/complete: its `completion`.
function completionOf(result: Record<string, unknown>, who: string): CompletionResult {
  if (!isPlainObject(result.completion))
    throw new TypeError(`${who} answered completion/complete without a completion`);
  return result.completion as CompletionResult;
}

const MAX_COMPLETIONS = 100;

function toCompletion(found: Completion): CompletionResult {
  const all = (Array.isArray(found) ? found : Array.isArray(found?.values) ? found.values : []).map(String);
  const values = all.slice(0, MAX_COMPLETIONS);
  const total = Array.isArray(found) ? all.length : (found.total ?? all.length);
  const hasMore = Array.isArray(found) ? all.length > MAX_COMPLETIONS : (found.hasMore ?? total > values.length);
  return { values, total, hasMore };
}
