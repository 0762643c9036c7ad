import { type CacheHint, type CacheKind, narrower } from "../protocol/cache-hints.js";
import type { ServerCapabilities } from "../wire/types.js";
import { UI_EXTENSION, UI_MIME_TYPE } from "./app-options.js";
import type { AppRegistry } from "./app-registry.js";
import type { CompiledResource, CompiledTool } from "./compile.js";
import { type CompletionRouter, hasCompleters } from "./completions.js";
import type { StaticResourceDefinition, ToolDefinition } from "./definitions.js";
import type { Modules } from "./mounts.js";
import { type ResourceRouter, resourcesListCache } from "./resources.js";
import { SKILLS_EXTENSION } from "./skills.js";
import type { ChangeKind, Table } from "./table.js";

/** What a router's declarations need of it: its tables, its apps, and its modules' own declarations. */
export interface DeclaringRouter extends CompletionRouter, ResourceRouter {
  readonly tools: Table<ToolDefinition, CompiledTool>;
  readonly resources: Table<StaticResourceDefinition, CompiledResource>;
  readonly apps: AppRegistry;
  readonly skills: { readonly size: number };
  readonly cache: Readonly<Record<CacheKind, CacheHint>>;
  readonly modules: Modules<DeclaringRouter>;
  capabilities(): ServerCapabilities;
  tasking(): boolean;
  hasApps(): boolean;
  listCache(kind: ChangeKind): CacheHint;
}

/**
 * What a router declares of itself, derived from its tables and its modules' declarations: its capabilities,
 * whether it runs tasks, the caching hint of each list. Each is built on first use and kept until `clear()` (any
 * change here or in a module).
 */
export class Declarations {
  readonly #router: DeclaringRouter;
  #capabilities: ServerCapabilities | undefined;
  #tasking: boolean | undefined;
  readonly #listCache = new Map<ChangeKind, CacheHint>();
  #resourcesListCache: { hint: CacheHint | undefined } | undefined;

  constructor(router: DeclaringRouter) {
    this.#router = router;
  }

  clear(): void {
    this.#capabilities = undefined;
    this.#tasking = undefined;
    this.#listCache.clear();
    this.#resourcesListCache = undefined;
  }

  /** Capabilities follow what is registered, modules' included (shared: do not mutate). */
  capabilities(): ServerCapabilities {
    this.#capabilities ??= capabilitiesOf(this.#router);
    return this.#capabilities;
  }

  /** Whether any tool here or in a module may run as a task. */
  tasking(): boolean {
    this.#tasking ??=
      [...this.#router.tools.map.values()].some((entry) => entry.compiled.task !== undefined) ||
      this.#router.modules.list.some(({ router }) => router.tasking());
    return this.#tasking;
  }

  /**
   * The caching hint of `kind`'s lists: this server's own `list` hint, no wider than that of any module (at any
   * depth) with items of that kind, so what a module lists is never cached wider than it says.
   */
  listCache(kind: ChangeKind): CacheHint {
    let hint = this.#listCache.get(kind);
    if (hint === undefined) {
      hint = this.#router.cache.list;
      for (const { router } of this.#router.modules.list) {
        if (router.capabilities()[kind]) hint = narrower(hint, router.listCache(kind));
      }
      this.#listCache.set(kind, hint);
    }
    return hint;
  }

  /** The caching hint of a `resources/list` that templates compute per request; undefined when static. */
  resourcesListCache(): CacheHint | undefined {
    this.#resourcesListCache ??= { hint: resourcesListCache(this.#router) };
    return this.#resourcesListCache.hint;
  }
}

/** True when a tool here or in a mounted module links an MCP App (the extension is declared). */
export function hasApps(router: DeclaringRouter): boolean {
  return router.apps.any || router.modules.list.some(({ router: module }) => module.hasApps());
}

// The capabilities of what is registered in `router` and in its modules.
function capabilitiesOf(router: DeclaringRouter): ServerCapabilities {
  const capabilities: ServerCapabilities = { logging: {} };
  if (hasCompleters(router)) capabilities.completions = {};
  if (router.prompts.map.size > 0) capabilities.prompts = { listChanged: true };
  if (router.resources.map.size > 0 || router.templates.map.size > 0) {
    capabilities.resources = { subscribe: true, listChanged: true };
  }
  if (router.tools.map.size > 0) capabilities.tools = { listChanged: true };
  if (router.hasApps()) capabilities.extensions = { [UI_EXTENSION]: { mimeTypes: [UI_MIME_TYPE] } };
  // Every directory of a skill is served: resources/directory/read is declared with the extension.
  if (router.skills.size > 0) {
    capabilities.extensions = { ...capabilities.extensions, [SKILLS_EXTENSION]: { directoryRead: true } };
  }
  for (const { router: module } of router.modules.list) {
    const theirs = module.capabilities();
    if (theirs.completions) capabilities.completions = {};
    if (theirs.prompts) capabilities.prompts = { listChanged: true };
    if (theirs.resources) capabilities.resources = { subscribe: true, listChanged: true };
    if (theirs.tools) capabilities.tools = { listChanged: true };
  }
  return capabilities;
}
