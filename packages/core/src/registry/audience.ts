import type { AppRegistry } from "./app-registry.js";
import type { CompiledPrompt, CompiledResource, CompiledTemplate, CompiledTool } from "./compile.js";
import type {
  PromptDefinition,
  ResourceTemplateDefinition,
  StaticResourceDefinition,
  ToolDefinition,
} from "./definitions.js";
import type { Guard } from "./guards.js";
import type { ModuleRouter, Modules } from "./mounts.js";
import type { Audience, ChangeKind, Table } from "./table.js";

// Who a change or a list concerns: the guard of one changed item, the audience of every change of a kind, and
// whether a kind's list differs from caller to caller.

/** What the audience of a change needs of a router: its tables, its apps and its modules (routers alike). */
export interface AudienceRouter extends ModuleRouter {
  readonly tools: Table<ToolDefinition, CompiledTool>;
  readonly resources: Table<StaticResourceDefinition, CompiledResource>;
  readonly templates: Table<ResourceTemplateDefinition, CompiledTemplate>;
  readonly prompts: Table<PromptDefinition, CompiledPrompt>;
  readonly apps: AppRegistry;
  readonly modules: Modules<AudienceRouter>;
}

// The tables whose items a change of `kind` concerns (templates count as resources).
function tablesOf(
  router: AudienceRouter,
  kind: ChangeKind,
): readonly Pick<Table<never, never>, "guardOf" | "guardsInto">[] {
  const { tools, prompts, resources, templates } = router;
  return kind === "tools" ? [tools] : kind === "prompts" ? [prompts] : [resources, templates];
}

/**
 * The guard of what a change of `kind` under `key` (as this router's server names it, a module's included)
 * concerns: undefined when unguarded, null when nothing here has that key.
 */
export function guardOf(router: AudienceRouter, kind: ChangeKind, key: string): Guard | undefined | null {
  // An app's change concerns whoever its tools' guards allow, whether a tool is enabled or not.
  if (kind === "resources") {
    const app = router.apps.audienceOf(key);
    if (app !== null) return app;
  }
  for (const table of tablesOf(router, kind)) {
    const guard = table.guardOf(key);
    if (guard !== null) return guard;
  }
  const { modules } = router;
  if (kind !== "resources") {
    const inModule = modules.find(key);
    return inModule ? guardOf(inModule.mount.router, kind, inModule.rest) : null;
  }
  for (const mount of modules.list) {
    const guard = guardOf(mount.router, kind, key);
    if (guard !== null) return guard;
  }
  return router.apps.goneAudienceOf(key);
}

/**
 * Who may hear of a change to any item of `kind`, modules' included: everyone once one is unguarded, else the
 * callers one of their guards allows (so a change told to all of them reveals no guarded item).
 */
export function audienceOfAll(router: AudienceRouter, kind: ChangeKind, guards = new Set<Guard>()): Audience {
  for (const table of tablesOf(router, kind)) if (!table.guardsInto(guards)) return undefined;
  if (kind === "resources" && !router.apps.audiencesInto(guards)) return undefined;
  for (const { router: module } of router.modules.list) {
    if (audienceOfAll(module, kind, guards) === undefined) return undefined;
  }
  return [...guards];
}

/**
 * True when what `kind`'s list shows depends on the caller: a guard here, or a module's guard or middleware. (A
 * template's `list`, given the caller's context, makes `resources/list` private through `resourcesListCache`.)
 */
export function dependsOnCaller(router: AudienceRouter, kind: ChangeKind): boolean {
  for (const table of [router.tools, router.templates, router.prompts]) {
    if (table.changeKind === kind && table.guarded()) return true;
  }
  // An app's resource is guarded by its tools, which may not be: then every caller sees it alike.
  if (kind === "resources") {
    for (const { key, definition } of router.resources.enabled()) {
      const { guard } = definition;
      if (guard !== undefined && !router.apps.showsAlike(key, guard)) return true;
    }
  }
  return router.modules.list.some((mount) => mount.middleware().length > 0 || dependsOnCaller(mount.router, kind));
}
