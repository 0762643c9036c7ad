import type { RequestContext } from "../context/context.js";
import type { LogEntry } from "../context/logger.js";
import type { ScopeHierarchy } from "../context/scopes.js";
import type { Middleware } from "../middleware/compose.js";
import { type CacheHint, type CacheKind, serverCacheHints } from "../protocol/cache-hints.js";
import { featuresOf } from "../protocol/revision.js";
import { shapeReadResult } from "../protocol/revision-shape.js";
import { andThen, type MaybePromise } from "../wire/maybe.js";
import type {
  CallToolResult,
  GetPromptResult,
  Prompt,
  Resource,
  ResourceTemplate,
  ServerCapabilities,
  Tool,
} from "../wire/types.js";
import { AppRegistry } from "./app-registry.js";
import { type AudienceRouter, audienceOfAll, dependsOnCaller, guardOf } from "./audience.js";
import type { CompiledPrompt, CompiledResource, CompiledTemplate, CompiledTool } from "./compile.js";
import { compilePrompt } from "./compile-prompt.js";
import { compileStaticResource, compileTemplate } from "./compile-resource.js";
import { compileTool } from "./compile-tool.js";
import { type CompleteRef, type CompletionResult, type CompletionRouter, complete } from "./completions.js";
import { Declarations, type DeclaringRouter, hasApps } from "./declarations.js";
import type {
  PromptDefinition,
  ResourceDefinition,
  ResourceTemplateDefinition,
  StaticResourceDefinition,
  ToolDefinition,
} from "./definitions.js";
import type { Guard } from "./guards.js";
import { Modules, NO_PARAMS, type Params } from "./mounts.js";
import { getPrompt, type PromptRouter } from "./prompts.js";
import { canRead, listResources, type ReadOutcome, type ResourceRouter, readResource, watcherOf } from "./resources.js";
import { NO_SERVER_SCOPES, type ServerScopes } from "./scopes.js";
import { SkillRegistry } from "./skills.js";
import {
  type Audience,
  type ChangeKind,
  type HandleOp,
  type OnChange,
  type Registered,
  type RegisteredKind,
  Table,
} from "./table.js";
import { callTool, type ToolCheck, type ToolRouter } from "./tools.js";
import { Views } from "./views.js";

export type { Audience, ChangeKind, HandleOp, OnChange, Registered, RegisteredKind } from "./table.js";

/** Told of each handle's enable, disable or remove, in this router's tables (a module's keys as the module's own). */
export type OnHandle = (kind: RegisteredKind, key: string, op: HandleOp) => void;

/**
 * The registry of tools, resources and prompts, and the methods that serve them: its tables, the mounted modules
 * and the lists here; tools, resources, prompts and completion each served from its own file, as are its apps
 * (app-registry.ts), who hears of a change (audience.ts) and what it declares (declarations.ts). Definitions are
 * checked and compiled at registration (a tool's JSON Schemas on first use, once a walk showed they exist).
 */
export class Router
  implements ToolRouter, ResourceRouter, PromptRouter, CompletionRouter, AudienceRouter, DeclaringRouter
{
  readonly tools: Table<ToolDefinition, CompiledTool>;
  readonly resources: Table<StaticResourceDefinition, CompiledResource>;
  readonly templates: Table<ResourceTemplateDefinition, CompiledTemplate>;
  readonly prompts: Table<PromptDefinition, CompiledPrompt>;
  readonly modules = new Modules<Router>((kind) => this.#table(kind));
  /** Where what goes wrong while serving is told (the server's log). */
  readonly report: (entry: LogEntry) => void;
  /** Its server's own caching hints (`createServer({ cache })` over the defaults). */
  readonly cache: Readonly<Record<CacheKind, CacheHint>>;
  /** The MCP Apps its tools link. */
  readonly apps: AppRegistry;
  /** Its skills (io.modelcontextprotocol/skills), whose files are its resources. */
  readonly skills: SkillRegistry;
  /** The scopes every operation of its server needs (`createServer({ scopes })`); undefined when none. */
  readonly required: readonly string[] | undefined;
  readonly #scopes: ServerScopes;
  // Derived from the tree of modules, made on first need and forgotten on any change.
  #hierarchy: ScopeHierarchy | undefined;
  #declaredScopes: readonly string[] | undefined;
  readonly #views = new Views();
  readonly #declared = new Declarations(this);
  readonly #onChange: OnChange;

  constructor(
    report: (entry: LogEntry) => void = () => {},
    onChange: OnChange = () => {},
    cache: Readonly<Record<CacheKind, CacheHint>> = serverCacheHints(undefined),
    onHandle: OnHandle = () => {},
    maxSchemaNodes?: number,
    scopes: ServerScopes = NO_SERVER_SCOPES,
  ) {
    this.report = report;
    this.required = scopes.required;
    this.#scopes = scopes;
    this.#onChange = onChange;
    this.cache = cache;
    const changed: OnChange = (kind, audience, keys) => this.#changed(kind, audience, keys);
    // Every kind's table alike: a change clears what was derived, and a new key must suit the mounted modules.
    const table = <D, C extends { definition: unknown; key: string; wire: object }>(
      kind: RegisteredKind,
      compile: (d: D) => C,
    ) =>
      new Table(
        kind,
        compile,
        changed,
        (key) => this.modules.admit(kind, key),
        (op, key) => onHandle(kind, key, op),
      );
    this.tools = table("tool", (definition: ToolDefinition) => compileTool(definition, maxSchemaNodes));
    this.resources = table("resource", compileStaticResource);
    this.templates = table("resourceTemplate", compileTemplate);
    this.prompts = table("prompt", compilePrompt);
    this.apps = new AppRegistry({
      tools: this.tools,
      resources: this.resources,
      report,
      admit: (kind, key) => this.modules.admit(kind, key),
      changed,
      forget: () => this.#declared.clear(),
    });
    this.skills = new SkillRegistry({ add: (definition) => this.resources.add(definition) }, report, () =>
      this.#declared.clear(),
    );
  }

  #changed(kind: ChangeKind, audience: Audience, keys: readonly string[]): void {
    this.#views.clear();
    this.#hierarchy = undefined;
    this.#declaredScopes = undefined;
    this.#declared.clear();
    this.#onChange(kind, audience, keys);
  }

  /**
   * The guard of what a change of `kind` under `key` (as this server names it, a module's included) concerns:
   * undefined when unguarded, null when nothing here has that key.
   */
  guardOf(kind: ChangeKind, key: string): Guard | undefined | null {
    return guardOf(this, kind, key);
  }

  /**
   * Who may hear of a change to any item of `kind`, modules' included: everyone once one is unguarded, else the
   * callers one of their guards allows (so a change told to all of them reveals no guarded item).
   */
  audienceOfAll(kind: ChangeKind, guards = new Set<Guard>()): Audience {
    return audienceOfAll(this, kind, guards);
  }

  #table(kind: RegisteredKind): Table<never, never> {
    const table =
      kind === "tool"
        ? this.tools
        : kind === "prompt"
          ? this.prompts
          : kind === "resource"
            ? this.resources
            : this.templates;
    return table as unknown as Table<never, never>;
  }

  addTool(definition: ToolDefinition): Registered<ToolDefinition> {
    if (definition.ui === undefined) return this.tools.add(definition);
    return this.apps.addTool(definition);
  }

  /**
   * Which scopes imply which: its server's `impliedScopes` with those of every module it serves (a hierarchy is a
   * fact about the scopes of one authorization server, whoever declares it).
   */
  hierarchy(): ScopeHierarchy {
    this.#hierarchy ??= this.modules.list.reduce(
      (joined, mount) => joined.with(mount.router.hierarchy()),
      this.#scopes.hierarchy,
    );
    return this.#hierarchy;
  }

  /**
   * Every scope it uses, sorted: its server's, those of each enabled item no guard hides, and its modules'. What
   * RFC 9728 metadata lists as `scopes_supported` unless told otherwise: a guarded item's scopes are left out, as a
   * guard hides the item itself.
   */
  declaredScopes(): readonly string[] {
    if (this.#declaredScopes !== undefined) return this.#declaredScopes;
    const found = new Set(this.required);
    const add = (item: {
      readonly scopes: readonly string[] | undefined;
      readonly definition: { guard?: unknown };
    }) => {
      if (item.scopes !== undefined && item.definition.guard === undefined)
        for (const one of item.scopes) found.add(one);
    };
    for (const table of [this.tools, this.resources, this.templates, this.prompts] as const) {
      for (const item of (table as Table<never, CompiledTool | CompiledPrompt>).enabled()) add(item);
    }
    for (const mount of this.modules.list) for (const one of mount.router.declaredScopes()) found.add(one);
    this.#declaredScopes = Object.freeze([...found].sort());
    return this.#declaredScopes;
  }

  /** True when a tool here or in a mounted module links an MCP App (the extension is declared). */
  hasApps(): boolean {
    return hasApps(this);
  }

  addResource(definition: StaticResourceDefinition): Registered<StaticResourceDefinition>;
  addResource(definition: ResourceTemplateDefinition): Registered<ResourceTemplateDefinition>;
  addResource(definition: ResourceDefinition): Registered<ResourceDefinition> {
    if ("uriTemplate" in definition) return this.templates.add(definition) as Registered<ResourceDefinition>;
    return this.resources.add(definition) as Registered<ResourceDefinition>;
  }

  /** The handle of what is registered under `key` (a name, URI or URI template), enabled or not. */
  registered(kind: RegisteredKind, key: string): Registered<never> | undefined {
    const table = this.#table(kind);
    const entry = table.map.get(key);
    if (entry) return table.handle(entry) as Registered<never>;
    return this.modules.registered(kind, key);
  }

  addPrompt(definition: PromptDefinition): Registered<PromptDefinition> {
    return this.prompts.add(definition);
  }

  /** Capabilities follow what is registered (built once per change, shared: do not mutate). */
  capabilities(): ServerCapabilities {
    return this.#declared.capabilities();
  }

  /** Whether any tool here or in a module may run as a task (built once per change). */
  tasking(): boolean {
    return this.#declared.tasking();
  }

  listTools(ctx: RequestContext, params: Params = NO_PARAMS): MaybePromise<Tool[]> {
    const own = this.#views.visible("tools", ctx, this.tools, this.report);
    return this.modules.listed(own, "tools/list", "tools", ctx, params, (router, local) =>
      router.listTools(ctx, local),
    );
  }

  listResourceTemplates(ctx: RequestContext, params: Params = NO_PARAMS): MaybePromise<ResourceTemplate[]> {
    const own = this.#views.visible("templates", ctx, this.templates, this.report);
    return this.modules.listed(own, "resources/templates/list", "resourceTemplates", ctx, params, (router, local) =>
      router.listResourceTemplates(ctx, local),
    );
  }

  listPrompts(ctx: RequestContext, params: Params = NO_PARAMS): MaybePromise<Prompt[]> {
    const own = this.#views.visible("prompts", ctx, this.prompts, this.report);
    return this.modules.listed(own, "prompts/list", "prompts", ctx, params, (router, local) =>
      router.listPrompts(ctx, local),
    );
  }

  /** `resources/list`: the static resources, then what templates compute and modules list (see resources.ts). */
  listResources(ctx: RequestContext, params: Params = NO_PARAMS): MaybePromise<Resource[]> {
    const fixed = this.#views.visible("resources", ctx, this.resources, this.report);
    return listResources(this, fixed, ctx, params);
  }

  /**
   * The caching hint of `kind`'s lists: this server's own `list` hint, no wider than that of any module (at any
   * depth) with items of that kind, so what a module lists is never cached wider than it says.
   */
  listCache(kind: ChangeKind): CacheHint {
    return this.#declared.listCache(kind);
  }

  /** The caching hint of a `resources/list` that templates compute per request; undefined when static. */
  resourcesListCache(): CacheHint | undefined {
    return this.#declared.resourcesListCache();
  }

  /**
   * True when what `kind`'s list shows depends on the caller: a guard here, or a module's guard or middleware. (A
   * template's `list`, given the caller's context, makes `resources/list` private through `resourcesListCache`.)
   */
  dependsOnCaller(kind: ChangeKind): boolean {
    return dependsOnCaller(this, kind);
  }

  /**
   * Serve another router's tools and prompts under `prefix.` and its resources as they are. A name or URI that would
   * be served twice fails now, naming both sources.
   */
  mount(prefix: string, router: Router, source: string, middleware: () => readonly Middleware[] = () => []): void {
    this.modules.add(prefix, router, router.modules, source, middleware);
    for (const kind of ["tools", "resources", "prompts"] as const) this.#changed(kind, undefined, []);
  }

  /** A mounted module changed: what this server shows changed with it, for the same audience (`keys` as named here). */
  mountedChanged(kind: ChangeKind, audience: Audience, keys: readonly string[]): void {
    this.#changed(kind, audience, keys);
  }

  /** `tools/call`; `params` as the request had them, `check` the transport's own (HTTP: `Mcp-Param-*` headers). */
  callTool(
    name: string,
    args: Record<string, unknown> | undefined,
    ctx: RequestContext,
    params: Params = NO_PARAMS,
    check?: ToolCheck,
  ): MaybePromise<CallToolResult> {
    return callTool(this, name, args, ctx, params, check, name);
  }

  /** True when `uri` is served for this caller (a resource updates only a subscriber who could read it). */
  canRead(uri: string, ctx: RequestContext): boolean {
    return canRead(this, uri, ctx);
  }

  /** The `watch` of the resource or template that serves `uri` to this caller, if it has one. */
  watcherOf(uri: string, ctx: RequestContext): ((uri: string) => () => void) | undefined {
    return watcherOf(this, uri, ctx);
  }

  readResource(uri: string, ctx: RequestContext, params: Params = NO_PARAMS): MaybePromise<ReadOutcome> {
    const features = featuresOf(ctx.protocolVersion);
    const read = readResource(this, uri, ctx, params);
    // Only 2025-03-26 has anything to drop from a read (contents' `_meta`).
    return features.itemMeta ? read : andThen(read, (result) => shapeReadResult(result, features));
  }

  getPrompt(
    name: string,
    args: Record<string, string> | undefined,
    ctx: RequestContext,
    params: Params = NO_PARAMS,
  ): MaybePromise<GetPromptResult> {
    return getPrompt(this, name, args, ctx, params, name);
  }

  /** `completion/complete`: suggestions for a prompt argument or a template variable. */
  complete(
    ref: CompleteRef,
    argument: { name: string; value: string },
    known: Readonly<Record<string, string>>,
    ctx: RequestContext,
    params: Params = NO_PARAMS,
  ): MaybePromise<CompletionResult> {
    return complete(this, ref, argument, known, ctx, params, ref.name);
  }
}
