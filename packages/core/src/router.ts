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
  Guard,
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
import { describeOperation, type Middleware, type OperationKind, runMiddleware } from "./middleware.js";
import { featuresOf, type ProtocolVersion, type RevisionFeatures } from "./protocol.js";
import { type ChangeKind, type Entry, type Registered, type RegisteredKind, Table } from "./registry.js";
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

export type { ChangeKind, Registered, RegisteredKind } from "./registry.js";

/** A list as a revision shows it, and the guards of its items (when any has one). */
interface View<T> {
  items: T[];
  guards?: (Guard | undefined)[];
}

/** Another server's router, served under a prefix. */
interface Mount {
  readonly prefix: string;
  readonly router: Router;
  /** Run the module's own middleware around one of its operations. */
  around<T>(
    method: string,
    kind: OperationKind,
    params: Record<string, unknown>,
    ctx: RequestContext,
    serve: () => MaybePromise<T>,
  ): MaybePromise<T>;
  /** How clash messages name it. */
  readonly source: string;
  /** Its listed tools and prompts, renamed once per listed object. */
  readonly names: WeakMap<object, object>;
}

function allows(guard: Guard | undefined, ctx: RequestContext): boolean {
  return guard === undefined || guard(ctx) === true;
}

function renamed<T extends { name: string }>(mount: Mount, item: T): T {
  let copy = mount.names.get(item) as T | undefined;
  if (!copy) {
    copy = { ...item, name: `${mount.prefix}.${item.name}` };
    mount.names.set(item, copy);
  }
  return copy;
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
  readonly #views = new Map<string, View<object>>();
  readonly #mounts: Mount[] = [];
  /** The servers this one is mounted in, under which prefix. */
  readonly #parents: { parent: Router; prefix: string; source: string }[] = [];
  #capabilities: ServerCapabilities | undefined;
  readonly #report: (entry: LogEntry) => void;
  readonly #onChange: (kind: ChangeKind) => void;

  constructor(report: (entry: LogEntry) => void = () => {}, onChange: (kind: ChangeKind) => void = () => {}) {
    this.#report = report;
    this.#onChange = onChange;
    const changed = (kind: ChangeKind) => this.#changed(kind);
    this.#tools = new Table(
      "tools",
      (definition) => compileTool(definition as ToolDefinition<InputSchema | undefined>),
      (compiled) => compiled.wire.name,
      (name) => `Tool "${name}" is defined twice; give each tool its own name`,
      changed,
      (name) => this.#admit("tool", name),
    );
    this.#resources = new Table(
      "resources",
      compileStaticResource,
      (compiled) => compiled.wire.uri,
      (uri) => `Resource "${uri}" is defined twice; give each resource its own URI`,
      changed,
      (uri) => this.#admit("resource", uri),
    );
    this.#templates = new Table(
      "resources",
      (definition) => compileTemplate(definition as ResourceTemplateDefinition<InputSchema | undefined>),
      (compiled) => compiled.wire.uriTemplate,
      (uriTemplate) => `Resource template "${uriTemplate}" is defined twice; give each template its own pattern`,
      changed,
      (uriTemplate) => this.#admit("resourceTemplate", uriTemplate),
    );
    this.#prompts = new Table(
      "prompts",
      (definition) => compilePrompt(definition as PromptDefinition<InputSchema | undefined>),
      (compiled) => compiled.wire.name,
      (name) => `Prompt "${name}" is defined twice; give each prompt its own name`,
      changed,
      (name) => this.#admit("prompt", name),
    );
  }

  #changed(kind: ChangeKind): void {
    this.#views.clear();
    this.#capabilities = undefined;
    this.#onChange(kind);
  }

  #changedAll(): void {
    for (const kind of ["tools", "resources", "prompts"] as const) this.#changed(kind);
  }

  // A key this server takes must not be served twice anywhere in its tree of modules: not under one of its own
  // modules' prefixes, not as a URI a parent or another module serves, and no tool name over 64 characters as the
  // clients of any parent see it. Asked on every registration and rename, here and in every module.
  #admit(kind: RegisteredKind, key: string): void {
    if (kind === "tool" || kind === "prompt") {
      const inModule = this.#mountFor(key);
      if (inModule) {
        throw new DefinitionError(
          `${kind === "tool" ? "Tool" : "Prompt"} "${key}" would shadow ${inModule.mount.source}, mounted at "${inModule.mount.prefix}"; rename it, or mount under another prefix`,
        );
      }
    }
    if (kind === "resource" || kind === "resourceTemplate") {
      const module = this.#mounts.find((mount) =>
        kind === "resource" ? mount.router.#resourceOwner(key) : mount.router.#templateOwner(key),
      );
      if (module) {
        throw new DefinitionError(
          `${kind === "resource" ? "Resource" : "Resource template"} "${key}" is defined twice: ${module.source} serves it already; give one another ${kind === "resource" ? "URI" : "template"}`,
        );
      }
    }
    for (const link of this.#parents) link.parent.#admitFromModule(kind, key, link.prefix, link.source, this);
  }

  // A module of this server takes `key`: it is `prefix.key` here (tools, prompts), or the same URI.
  #admitFromModule(kind: RegisteredKind, key: string, prefix: string, source: string, from: Router): void {
    let seen = key;
    if (kind === "tool" || kind === "prompt") {
      seen = `${prefix}.${key}`;
      if (kind === "tool" && seen.length > 64) {
        throw new DefinitionError(
          `Tool "${seen}" (from ${source}) is over 64 characters as this server lists it; use a shorter name or prefix`,
        );
      }
    } else {
      const owner = kind === "resource" ? this.#resourceOwner(key, from) : this.#templateOwner(key, from);
      if (owner) {
        const what = kind === "resource" ? "Resource" : "Resource template";
        throw new DefinitionError(
          `${what} "${key}" is served by both ${owner} and ${source}; give one another ${kind === "resource" ? "URI" : "template"}`,
        );
      }
    }
    for (const link of this.#parents) link.parent.#admitFromModule(kind, seen, link.prefix, link.source, this);
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
    if (entry) return (table as unknown as Table<never, never>).handle(entry) as Registered<never>;
    // Through a module: its tools and prompts by their public names, its resources by URI.
    if (kind === "tool" || kind === "prompt") {
      const inModule = this.#mountFor(key);
      return inModule?.mount.router.registered(kind, inModule.rest);
    }
    for (const mount of this.#mounts) {
      const found = mount.router.registered(kind, key);
      if (found) return found;
    }
    return undefined;
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
      for (const { router } of this.#mounts) {
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

  #view<T extends object>(
    kind: string,
    version: ProtocolVersion,
    items: Iterable<{ wire: T; definition: { guard?: Guard } }>,
  ): View<T> {
    const key = `${kind} ${version}`;
    let view = this.#views.get(key) as View<T> | undefined;
    if (!view) {
      const features = featuresOf(version);
      const all = [...items];
      const guards = all.map((item) => item.definition.guard);
      view = { items: all.map((item) => shape(item.wire, features)) };
      if (guards.some((guard) => guard !== undefined)) view.guards = guards;
      this.#views.set(key, view);
    }
    return view;
  }

  // What this caller may see of a view, then what the mounted modules add, renamed under their prefixes.
  #list<T extends object>(view: View<T>, ctx: RequestContext, mounted: (mount: Mount) => T[]): T[] {
    const { guards } = view;
    const own = guards ? view.items.filter((_, index) => allows(guards[index], ctx)) : view.items;
    if (this.#mounts.length === 0) return own;
    return [...own, ...this.#mounts.flatMap(mounted)];
  }

  listTools(ctx: RequestContext): Tool[] {
    return this.#list(this.#view("tools", ctx.protocolVersion, this.#tools.enabled()), ctx, (mount) =>
      mount.router.listTools(ctx).map((tool) => renamed(mount, tool)),
    );
  }

  listResourceTemplates(ctx: RequestContext): ResourceTemplate[] {
    return this.#list(this.#view("templates", ctx.protocolVersion, this.#templates.enabled()), ctx, (mount) =>
      mount.router.listResourceTemplates(ctx),
    );
  }

  listPrompts(ctx: RequestContext): Prompt[] {
    return this.#list(this.#view("prompts", ctx.protocolVersion, this.#prompts.enabled()), ctx, (mount) =>
      mount.router.listPrompts(ctx).map((prompt) => renamed(mount, prompt)),
    );
  }

  listResources(ctx: RequestContext): MaybePromise<Resource[]> {
    const fixed = this.#list(this.#view("resources", ctx.protocolVersion, this.#resources.enabled()), ctx, () => []);
    const lists: MaybePromise<Resource[]>[] = [];
    for (const { definition } of this.#templates.enabled()) {
      if (definition.list && allows(definition.guard, ctx)) lists.push(definition.list(ctx));
    }
    for (const mount of this.#mounts) lists.push(mount.router.listResources(ctx));
    if (lists.length === 0) return fixed;
    const features = featuresOf(ctx.protocolVersion);
    const join = (found: Resource[][]) => [...fixed, ...found.flat().map((resource) => shape(resource, features))];
    return lists.some(isPromiseLike) ? Promise.all(lists).then(join) : join(lists as Resource[][]);
  }

  /** True when what `kind`'s list shows depends on the caller (a guard here or in a mounted module). */
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
    return this.#mounts.some((mount) => mount.router.dependsOnCaller(kind));
  }

  /** The module whose prefix starts `name` (`github.create_issue` → github's `create_issue`). */
  #mountFor(name: string): { mount: Mount; rest: string } | undefined {
    const dot = name.indexOf(".");
    if (dot < 1) return undefined;
    const prefix = name.slice(0, dot);
    const mount = this.#mounts.find((candidate) => candidate.prefix === prefix);
    return mount ? { mount, rest: name.slice(dot + 1) } : undefined;
  }

  /**
   * Serve another router's tools and prompts under `prefix.` and its resources as they are. A name or URI that would
   * be served twice fails now, naming both sources.
   */
  mount(prefix: string, router: Router, source: string, middleware: () => readonly Middleware[] = () => []): void {
    if (!/^[A-Za-z0-9_-]{1,32}$/.test(prefix)) {
      throw new DefinitionError(
        `Mount prefix ${JSON.stringify(prefix)} is invalid: use 1–32 characters of A-Z, a-z, 0-9, "_" and "-"`,
      );
    }
    if (router === this || router.#reaches(this)) {
      throw new DefinitionError(
        `${source} already serves this server, directly or through its modules: mounting it would make a cycle`,
      );
    }
    const taken = this.#mounts.find((mount) => mount.prefix === prefix);
    if (taken)
      throw new DefinitionError(
        `Mount prefix "${prefix}" is taken by ${taken.source}; mount ${source} under another prefix`,
      );
    const around: Mount["around"] = (method, kind, params, ctx, serve) => {
      const own = middleware();
      if (own.length === 0) return serve();
      const operation = describeOperation(
        method,
        kind,
        params,
        ctx as RequestContext & { abort(reason: unknown): void },
      );
      return runMiddleware(own, operation, serve as () => MaybePromise<Record<string, unknown>>) as MaybePromise<never>;
    };
    const mount: Mount = { prefix, router, source, names: new WeakMap(), around };
    for (const [kind, table] of [
      ["tool", this.#tools],
      ["prompt", this.#prompts],
    ] as const) {
      for (const name of table.map.keys()) {
        if (name.startsWith(`${prefix}.`)) {
          throw new DefinitionError(
            `${kind === "tool" ? "Tool" : "Prompt"} "${name}" is defined by this server and would also be ${source}'s, mounted at "${prefix}"; rename one, or mount under another prefix`,
          );
        }
      }
    }
    // Everything the module serves, its own modules' too, as this server (and each above it) would serve it.
    for (const kind of ["tool", "prompt", "resource", "resourceTemplate"] as const) {
      for (const key of router.#keys(kind)) this.#admitFromModule(kind, key, prefix, source, router);
    }
    this.#mounts.push(mount);
    router.#parents.push({ parent: this, prefix, source });
    this.#changedAll();
  }

  // Whether a tool or prompt of this name is served here or in a module below (guards aside).
  #serves(kind: "tool" | "prompt", name: string): boolean {
    if ((kind === "tool" ? this.#tools : this.#prompts).get(name)) return true;
    const inModule = this.#mountFor(name);
    return inModule !== undefined && inModule.mount.router.#serves(kind, inModule.rest);
  }

  // The keys this router serves, its modules' included (tools and prompts under their prefixes).
  #keys(kind: RegisteredKind): string[] {
    const table =
      kind === "tool"
        ? this.#tools
        : kind === "prompt"
          ? this.#prompts
          : kind === "resource"
            ? this.#resources
            : this.#templates;
    const named = kind === "tool" || kind === "prompt";
    return [
      ...(table.map as Map<string, unknown>).keys(),
      ...this.#mounts.flatMap((mount) =>
        mount.router.#keys(kind).map((key) => (named ? `${mount.prefix}.${key}` : key)),
      ),
    ];
  }

  #reaches(target: Router): boolean {
    return this.#mounts.some((mount) => mount.router === target || mount.router.#reaches(target));
  }

  // Who serves `uri` in this server's tree, leaving out the module `except` (which is asking for it).
  #resourceOwner(uri: string, except?: Router): string | undefined {
    if (this.#resources.map.has(uri)) return "this server";
    return this.#mounts.find((mount) => mount.router !== except && mount.router.#resourceOwner(uri))?.source;
  }

  #templateOwner(uriTemplate: string, except?: Router): string | undefined {
    if (this.#templates.map.has(uriTemplate)) return "this server";
    return this.#mounts.find((mount) => mount.router !== except && mount.router.#templateOwner(uriTemplate))?.source;
  }

  /** A mounted module changed: what this server shows changed with it. */
  mountedChanged(kind: ChangeKind): void {
    this.#changed(kind);
  }

  callTool(name: string, args: Record<string, unknown> | undefined, ctx: RequestContext): MaybePromise<CallToolResult> {
    const tool = this.#tools.get(name);
    if (!tool || !allows(tool.definition.guard, ctx)) {
      const inModule = tool ? undefined : this.#mountFor(name);
      if (inModule && inModule.mount.router.#serves("tool", inModule.rest)) {
        const { mount, rest } = inModule;
        return mount.around("tools/call", "call", { name, arguments: args }, ctx, () =>
          mount.router.callTool(rest, args, ctx),
        );
      }
      throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
    }
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

  /** True when `uri` is served for this caller (a resource updates only a subscriber who could read it). */
  canRead(uri: string, ctx: RequestContext): boolean {
    return this.#resolve(uri, ctx) !== undefined;
  }

  readResource(uri: string, ctx: RequestContext): MaybePromise<ReadOutcome> {
    const read = this.#resolve(uri, ctx);
    if (read) return read();
    throw new McpError(featuresOf(ctx.protocolVersion).resourceNotFound, `Resource not found: ${uri}`, { uri });
  }

  // Who serves `uri` for this caller: a static resource, a template here, or one of a mounted module's.
  #resolve(uri: string, ctx: RequestContext): (() => MaybePromise<ReadOutcome>) | undefined {
    const notFound = (): never => {
      throw new McpError(featuresOf(ctx.protocolVersion).resourceNotFound, `Resource not found: ${uri}`, { uri });
    };
    const fixed = this.#resources.get(uri);
    if (fixed && allows(fixed.definition.guard, ctx)) {
      const { definition } = fixed;
      return () =>
        andThen(definition.handler(ctx), (value) => {
          const result = toReadResourceResult(value, uri, definition.mimeType);
          return result ? { result, cache: definition.cache } : notFound();
        });
    }
    for (const { definition, template, input } of this.#templates.enabled()) {
      if (!allows(definition.guard, ctx)) continue;
      const variables = template.match(uri);
      if (!variables) continue;
      const read = (args: unknown) =>
        andThen(definition.handler(args as never, ctx, uri), (value) => {
          const result = toReadResourceResult(value, uri, definition.mimeType);
          return result ? { result, cache: definition.cache } : notFound();
        });
      if (!input) return () => read(variables);
      return () =>
        andThen(input.validate(variables), (checked) => {
          if (checked.ok) return read(checked.value);
          const message = `Invalid variables for resource template "${template.template}":\n${describeIssues(checked.issues)}`;
          throw new McpError(ErrorCode.InvalidParams, message, { uri, issues: checked.issues });
        });
    }
    for (const mount of this.#mounts) {
      const read = mount.router.#resolve(uri, ctx);
      if (read) return () => mount.around("resources/read", "read", { uri }, ctx, read);
    }
    return undefined;
  }

  getPrompt(
    name: string,
    args: Record<string, string> | undefined,
    ctx: RequestContext,
  ): MaybePromise<GetPromptResult> {
    const prompt = this.#prompts.get(name);
    if (!prompt || !allows(prompt.definition.guard, ctx)) {
      const inModule = prompt ? undefined : this.#mountFor(name);
      if (inModule && inModule.mount.router.#serves("prompt", inModule.rest)) {
        const { mount, rest } = inModule;
        return mount.around("prompts/get", "get", { name, arguments: args }, ctx, () =>
          mount.router.getPrompt(rest, args, ctx),
        );
      }
      throw new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${name}`);
    }
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
      const prompt = this.#prompts.get(ref.name ?? "");
      if (!prompt) {
        const inModule = this.#mountFor(ref.name ?? "");
        if (inModule) return inModule.mount.router.complete({ ...ref, name: inModule.rest }, argument, known, ctx);
      }
      completers = prompt && allows(prompt.definition.guard, ctx) ? prompt.completers : undefined;
      if (!completers) throw new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${ref.name}`);
    } else if (ref.type === "ref/resource") {
      const template = this.#templates.get(ref.uri ?? "");
      if (!template) {
        const owner = this.#mounts.find((mount) => mount.router.#templateOwner(ref.uri ?? ""));
        if (owner) return owner.router.complete(ref, argument, known, ctx);
      }
      completers = template && allows(template.definition.guard, ctx) ? template.completers : undefined;
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
