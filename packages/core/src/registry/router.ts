import type { RequestContext } from "../context/context.js";
import type { LogEntry } from "../context/logger.js";
import type { Middleware } from "../middleware/compose.js";
import { type CacheHint, type CacheKind, narrower, serverCacheHints } from "../protocol/cache-hints.js";
import { featuresOf } from "../protocol/revision.js";
import { shapeReadResult } from "../protocol/revision-shape.js";
import { DefinitionError } from "../wire/errors.js";
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
import { UI_EXTENSION, UI_MIME_TYPE } from "./app-options.js";
import {
  type AppRecord,
  appAudience,
  appResource,
  type CheckedUi,
  callerFree,
  checkUi,
  type Linker,
  linkedTool,
  sameApp,
} from "./apps.js";
import {
  type CompiledPrompt,
  type CompiledResource,
  type CompiledTemplate,
  type CompiledTool,
  compilePrompt,
  compileStaticResource,
  compileTemplate,
  compileTool,
} from "./compile.js";
import {
  type CompleteRef,
  type CompletionResult,
  type CompletionRouter,
  complete,
  hasCompleters,
} from "./completions.js";
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
import {
  canRead,
  listResources,
  type ReadOutcome,
  type ResourceRouter,
  readResource,
  resourcesListCache,
} from "./resources.js";
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

// How many removed apps' audiences are kept for a list change heard from another process.
const MAX_GONE_APPS = 1000;

export type { Audience, ChangeKind, HandleOp, OnChange, Registered, RegisteredKind } from "./table.js";

/** Told of each handle's enable, disable or remove, in this router's tables (a module's keys as the module's own). */
export type OnHandle = (kind: RegisteredKind, key: string, op: HandleOp) => void;

/**
 * The registry of tools, resources and prompts, and the methods that serve them: its tables, the mounted modules,
 * the lists and capabilities here; tools, resources, prompts and completion each served from its own file.
 * Definitions are checked and compiled at registration (a tool's JSON Schemas on first use, once a walk showed they
 * exist).
 */
export class Router implements ToolRouter, ResourceRouter, PromptRouter, CompletionRouter {
  readonly tools: Table<ToolDefinition, CompiledTool>;
  readonly resources: Table<StaticResourceDefinition, CompiledResource>;
  readonly templates: Table<ResourceTemplateDefinition, CompiledTemplate>;
  readonly prompts: Table<PromptDefinition, CompiledPrompt>;
  readonly modules = new Modules<Router>((kind) => this.#table(kind));
  /** Where what goes wrong while serving is told (the server's log). */
  readonly report: (entry: LogEntry) => void;
  /** Its server's own caching hints (`createServer({ cache })` over the defaults). */
  readonly cache: Readonly<Record<CacheKind, CacheHint>>;
  readonly #views = new Views();
  // MCP Apps by ui:// URI: the tools linking each, and its resource.
  readonly #apps = new Map<string, AppRecord>();
  // Who could see an app removed with its last tool, for a list change another process tells of it (bounded).
  readonly #goneApps = new Map<string, Guard | undefined>();
  #capabilities: ServerCapabilities | undefined;
  #tasking: boolean | undefined;
  // The hints derived from the modules' (built on first use, forgotten on any change here or in a module).
  readonly #listCache = new Map<ChangeKind, CacheHint>();
  #resourcesListCache: { hint: CacheHint | undefined } | undefined;
  readonly #onChange: OnChange;

  constructor(
    report: (entry: LogEntry) => void = () => {},
    onChange: OnChange = () => {},
    cache: Readonly<Record<CacheKind, CacheHint>> = serverCacheHints(undefined),
    onHandle: OnHandle = () => {},
    maxSchemaNodes?: number,
  ) {
    this.report = report;
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
  }

  #changed(kind: ChangeKind, audience: Audience, keys: readonly string[]): void {
    this.#views.clear();
    this.#capabilities = undefined;
    this.#tasking = undefined;
    this.#listCache.clear();
    this.#resourcesListCache = undefined;
    this.#onChange(kind, audience, keys);
  }

  /**
   * The guard of what a change of `kind` under `key` (as this server names it, a module's included) concerns:
   * undefined when unguarded, null when nothing here has that key.
   */
  guardOf(kind: ChangeKind, key: string): Guard | undefined | null {
    // An app's change concerns whoever its tools' guards allow, whether a tool is enabled or not.
    const app = kind === "resources" ? this.#apps.get(key) : undefined;
    if (app?.resource && !app.resource.removed) return appAudience(app.linkers, this.report);
    const tables =
      kind === "tools" ? [this.tools] : kind === "prompts" ? [this.prompts] : [this.resources, this.templates];
    for (const table of tables) {
      const guard = table.guardOf(key);
      if (guard !== null) return guard;
    }
    if (kind !== "resources") {
      const inModule = this.modules.find(key);
      return inModule ? inModule.mount.router.guardOf(kind, inModule.rest) : null;
    }
    for (const mount of this.modules.list) {
      const guard = mount.router.guardOf(kind, key);
      if (guard !== null) return guard;
    }
    return this.#goneApps.has(key) ? this.#goneApps.get(key) : null;
  }

  /**
   * Who may hear of a change to any item of `kind`, modules' included: everyone once one is unguarded, else the
   * callers one of their guards allows (so a change told to all of them reveals no guarded item).
   */
  audienceOfAll(kind: ChangeKind, guards = new Set<Guard>()): Audience {
    const tables =
      kind === "tools" ? [this.tools] : kind === "prompts" ? [this.prompts] : [this.resources, this.templates];
    for (const table of tables) if (!table.guardsInto(guards)) return undefined;
    if (kind === "resources") {
      for (const { linkers, resource } of this.#apps.values()) {
        if (!resource || resource.removed) continue;
        const audience = appAudience(linkers, this.report);
        if (audience === undefined) return undefined;
        guards.add(audience);
      }
    }
    for (const { router } of this.modules.list) if (router.audienceOfAll(kind, guards) === undefined) return undefined;
    return [...guards];
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
    return this.#addAppTool(definition);
  }

  // A tool with an app: the tool linked to it, and the app's resource registered by the first tool that gives its page.
  #addAppTool(definition: ToolDefinition): Registered<ToolDefinition> {
    const ui = checkUi(String(definition.name), definition.ui);
    const record: AppRecord = this.#apps.get(ui.uri) ?? { uri: ui.uri, linkers: [] };
    const registers = ui.html !== undefined && record.source === undefined;
    if (ui.html !== undefined && record.source !== undefined && !sameApp(record.source, ui)) {
      throw new DefinitionError(
        `Tool "${definition.name}" ui uri "${ui.uri}" is another tool's app with other html or metadata; give both tools the same ui object to share it`,
      );
    }
    const resource = registers ? appResource(record, ui, this.report) : undefined;
    if (resource) {
      if (this.resources.map.has(ui.uri)) {
        throw new DefinitionError(
          `Tool "${definition.name}" ui uri "${ui.uri}" is already a resource; pick another ui:// URI`,
        );
      }
      // Checked before the tool is added: an app refused leaves no tool behind.
      this.resources.compile(resource);
      this.modules.admit("resource", ui.uri);
    }
    const handle = this.tools.add(linkedTool(definition, ui));
    const linker: Linker = { handle, guard: definition.guard };
    record.linkers.push(linker);
    this.#apps.set(ui.uri, record);
    this.#goneApps.delete(ui.uri);
    if (resource) {
      record.source = ui;
      record.resource = this.resources.add(resource);
    }
    this.#wrapAppHandle(record, linker, definition, ui);
    return handle;
  }

  // An app tool's handle: what it does to the tool, it does to who sees the app (told as a resources list change).
  #wrapAppHandle(record: AppRecord, linker: Linker, definition: ToolDefinition, ui: CheckedUi): void {
    const { handle } = linker;
    for (const op of ["enable", "disable"] as const) {
      const apply = handle[op].bind(handle);
      handle[op] = () => {
        const was = handle.enabled;
        apply();
        if (handle.enabled !== was) this.#appChanged(record, [linker.guard]);
      };
    }
    // The link outlives update(): new _meta keeps it, and the app itself is fixed at registration.
    const update = handle.update.bind(handle);
    handle.update = (changes) => {
      if ("ui" in changes) {
        throw new DefinitionError(
          `Tool "${handle.key}" ui is fixed at registration: remove the tool and register it again to change its app`,
        );
      }
      update("_meta" in changes ? { ...changes, _meta: linkedTool({ ...definition, ...changes }, ui)._meta } : changes);
      if (!("guard" in changes) || changes.guard === linker.guard) return;
      // A new guard decides who sees the app from now on; both sides hear of it.
      const before = linker.guard;
      linker.guard = changes.guard;
      if (handle.enabled) this.#appChanged(record, [before, linker.guard]);
    };
    // Removing the last tool that links an app removes the app.
    const remove = handle.remove.bind(handle);
    handle.remove = () => {
      if (handle.removed) return;
      const was = handle.enabled;
      const audience = appAudience(record.linkers, this.report);
      remove();
      record.linkers.splice(record.linkers.indexOf(linker) >>> 0, 1);
      if (was) this.#appChanged(record, [linker.guard]);
      if (record.linkers.length > 0) return;
      this.#apps.delete(ui.uri);
      if (record.resource && !record.resource.removed) {
        if (this.#goneApps.size >= MAX_GONE_APPS) this.#goneApps.clear();
        this.#goneApps.set(ui.uri, audience);
        record.resource.remove();
      }
      this.#capabilities = undefined;
    };
  }

  // Who sees the app changed for whom `guards` allow (anyone when one is undefined).
  #appChanged(record: AppRecord, guards: readonly (Guard | undefined)[]): void {
    const { resource } = record;
    if (!resource || resource.removed) return;
    const audience = guards.includes(undefined) ? undefined : (guards as Guard[]);
    this.#changed("resources", audience, [record.uri]);
  }

  /** True when a tool here or in a mounted module links an MCP App (the extension is declared). */
  hasApps(): boolean {
    return this.#apps.size > 0 || this.modules.list.some(({ router }) => router.hasApps());
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
    let capabilities = this.#capabilities;
    if (!capabilities) {
      capabilities = { logging: {} };
      if (hasCompleters(this)) capabilities.completions = {};
      if (this.prompts.map.size > 0) capabilities.prompts = { listChanged: true };
      if (this.resources.map.size > 0 || this.templates.map.size > 0) {
        capabilities.resources = { subscribe: true, listChanged: true };
      }
      if (this.tools.map.size > 0) capabilities.tools = { listChanged: true };
      if (this.hasApps()) capabilities.extensions = { [UI_EXTENSION]: { mimeTypes: [UI_MIME_TYPE] } };
      for (const { router } of this.modules.list) {
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

  /** Whether any tool here or in a module may run as a task (built once per change). */
  tasking(): boolean {
    this.#tasking ??=
      [...this.tools.map.values()].some((entry) => entry.compiled.task !== undefined) ||
      this.modules.list.some(({ router }) => router.tasking());
    return this.#tasking;
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
    let hint = this.#listCache.get(kind);
    if (hint === undefined) {
      hint = this.cache.list;
      for (const { router } of this.modules.list) {
        if (router.capabilities()[kind]) hint = narrower(hint, router.listCache(kind));
      }
      this.#listCache.set(kind, hint);
    }
    return hint;
  }

  /** The caching hint of a `resources/list` that templates compute per request; undefined when static. */
  resourcesListCache(): CacheHint | undefined {
    this.#resourcesListCache ??= { hint: resourcesListCache(this) };
    return this.#resourcesListCache.hint;
  }

  /**
   * True when what `kind`'s list shows depends on the caller: a guard here, or a module's guard or middleware. (A
   * template's `list`, given the caller's context, makes `resources/list` private through `resourcesListCache`.)
   */
  dependsOnCaller(kind: ChangeKind): boolean {
    for (const table of [this.tools, this.templates, this.prompts]) {
      if (table.changeKind === kind && table.guarded()) return true;
    }
    // An app's resource is guarded by its tools, which may not be: then every caller sees it alike.
    if (kind === "resources") {
      for (const { key, definition } of this.resources.enabled()) {
        const { guard } = definition;
        if (guard === undefined) continue;
        const app = this.#apps.get(key);
        if (app === undefined || app.access !== guard || !callerFree(app)) return true;
      }
    }
    return this.modules.list.some((mount) => mount.middleware().length > 0 || mount.router.dependsOnCaller(kind));
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
