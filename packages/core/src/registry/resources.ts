import { type RequestContext, withLogger } from "../context/context.js";
import type { LogEntry } from "../context/logger.js";
import { nameLogger, setCacheHint } from "../context/request-context.js";
import { type Middleware, runOwn } from "../middleware/compose.js";
import { CACHE_HINT, type CacheHint, type CacheKind, COMPUTED_LIST_CACHE, narrower } from "../protocol/cache-hints.js";
import { toReadResourceResult } from "../protocol/results.js";
import { featuresOf } from "../protocol/revision.js";
import { shape } from "../protocol/revision-shape.js";
import { describeIssues } from "../schema/validation-issues.js";
import { McpError } from "../wire/errors.js";
import { ErrorCode } from "../wire/json-rpc.js";
import { andThen, isPromiseLike, type MaybePromise } from "../wire/maybe.js";
import type { ReadResourceResult, Resource, ServerCapabilities } from "../wire/types.js";
import type { CompiledResource, CompiledTemplate } from "./compile.js";
import type { ResourceTemplateDefinition, StaticResourceDefinition } from "./definitions.js";
import { allows } from "./guards.js";
import { type ModuleRouter, type Modules, NO_PARAMS, type Params } from "./mounts.js";
import { demand, through } from "./scopes.js";
import type { Table } from "./table.js";

/**
 * What `resources/read` and `resources/list` need of a router: its resources and templates, where it reports, its
 * modules (routers alike), each module's whole resource list, and the caching hints of each.
 */
export interface ResourceRouter extends ModuleRouter {
  readonly resources: Table<StaticResourceDefinition, CompiledResource>;
  readonly templates: Table<ResourceTemplateDefinition, CompiledTemplate>;
  readonly modules: Modules<ResourceRouter>;
  readonly report: (entry: LogEntry) => void;
  /** The scopes every operation of its server needs (`createServer({ scopes })`). */
  readonly required: readonly string[] | undefined;
  /** Its server's own hints (`createServer({ cache })` over the defaults). */
  readonly cache: Readonly<Record<CacheKind, CacheHint>>;
  listResources(ctx: RequestContext, params: Params): MaybePromise<Resource[]>;
  capabilities(): ServerCapabilities;
  listCache(kind: "resources"): CacheHint;
  resourcesListCache(): CacheHint | undefined;
}

/** A read result, and under `CACHE_HINT` the caching hint its resource asked for. */
export type ReadOutcome = ReadResourceResult & { [CACHE_HINT]?: CacheHint };

/** `resources/read` of `uri` on `router`, its modules included: not found is the revision's code, with `{ uri }`. */
export function readResource(
  router: ResourceRouter,
  uri: string,
  ctx: RequestContext,
  params: Params,
): MaybePromise<ReadOutcome> {
  const read = resolve(router, uri, ctx, params);
  if (read) return read();
  throw new McpError(featuresOf(ctx.protocolVersion).resourceNotFound, `Resource not found: ${uri}`, { uri });
}

/** True when `uri` is served for this caller (a resource updates only a subscriber who could read it). */
export function canRead(router: ResourceRouter, uri: string, ctx: RequestContext): boolean {
  return resolve(router, uri, ctx, NO_PARAMS) !== undefined;
}

/** The `watch` of what serves `uri` to this caller, here or in a module; undefined when none has one. */
export function watcherOf(
  router: ResourceRouter,
  uri: string,
  ctx: RequestContext,
): ((uri: string) => () => void) | undefined {
  const fixed = router.resources.get(uri);
  if (fixed && allows(fixed.definition.guard, ctx, router.report)) return fixed.definition.watch;
  for (const { definition, template } of router.templates.enabled()) {
    if (allows(definition.guard, ctx, router.report) && template.match(uri)) return definition.watch;
  }
  for (const mount of router.modules.list) {
    if (canRead(mount.router, uri, ctx)) return watcherOf(mount.router, uri, ctx);
  }
  return undefined;
}

// Who serves `uri` for this caller: a static resource, a template here, or one of a mounted module's (inside its
// middleware). A URI names no module, so only one that serves it to this caller is asked. `above`: in a module, the
// narrowest read hint of the servers it is mounted through, the one serving the request included; `scopesAbove` the
// scopes of those servers. The read checks the caller's scopes first (a resource or the template that matched).
function resolve(
  router: ResourceRouter,
  uri: string,
  ctx: RequestContext,
  params: Params,
  above?: CacheHint,
  scopesAbove?: readonly string[],
): (() => MaybePromise<ReadOutcome>) | undefined {
  const notFound = (): never => {
    throw new McpError(featuresOf(ctx.protocolVersion).resourceNotFound, `Resource not found: ${uri}`, { uri });
  };
  const outcome = (result: ReadResourceResult | undefined, cache: CacheHint | undefined): ReadOutcome => {
    if (!result) return notFound();
    return cache ? { ...result, [CACHE_HINT]: cache } : result;
  };
  // A resource's own middleware runs around its read, seeing it as the router was asked (or by its URI).
  const own = (
    item: { readonly scopes: readonly string[] | undefined; readonly wire: { readonly name: string } },
    use: readonly Middleware[] | undefined,
    read: () => MaybePromise<ReadOutcome>,
  ) => {
    const served =
      use === undefined
        ? read
        : () => runOwn(use, "resources/read", "read", params === NO_PARAMS ? { uri } : params, ctx, read);
    if (scopesAbove === undefined && router.required === undefined && item.scopes === undefined) return served;
    return () => {
      const what = { key: item, what: `resource "${uri}" (${item.wire.name})` };
      demand(scopesAbove, router.required, item.scopes, ctx, what, router.report);
      return served();
    };
  };
  const fixed = router.resources.get(uri);
  if (fixed && allows(fixed.definition.guard, ctx, router.report)) {
    const { definition, wire, cache } = fixed;
    return own(fixed, definition.use, () => {
      nameLogger(ctx, wire.name);
      return andThen(definition.handler(ctx), (value) =>
        outcome(toReadResourceResult(value, uri, definition.mimeType), cache),
      );
    });
  }
  for (const compiled of router.templates.enabled()) {
    const { definition, template, input, wire, cache } = compiled;
    if (!allows(definition.guard, ctx, router.report)) continue;
    const variables = template.match(uri);
    if (!variables) continue;
    const read = (args: unknown) => {
      nameLogger(ctx, wire.name);
      return andThen(definition.handler(args as never, ctx, uri), (value) =>
        outcome(toReadResourceResult(value, uri, definition.mimeType), cache),
      );
    };
    if (!input) return own(compiled, definition.use, () => read(variables));
    return own(compiled, definition.use, () =>
      andThen(input.validate(variables), (checked) => {
        if (checked.ok) return read(checked.value);
        const message = `Invalid variables for resource template "${template.template}":\n${describeIssues(checked.issues)}`;
        throw new McpError(ErrorCode.InvalidParams, message, { uri, issues: checked.issues });
      }),
    );
  }
  for (const mount of router.modules.list) {
    // Read in a module, no wider than its server's own hint nor any above it says (a resource's own `cache` aside).
    const hint = narrower(above ?? router.cache.read, mount.router.cache.read);
    const read = resolve(mount.router, uri, ctx, params, hint, through(scopesAbove, router.required));
    if (read) {
      return () => {
        setCacheHint(ctx, hint);
        return runOwn(mount.middleware(), "resources/read", "read", params, ctx, read);
      };
    }
  }
  return undefined;
}

/**
 * `resources/list` on `router`: its static resources as this caller sees them (`fixed`), then what its templates'
 * `list` compute and its modules list, shaped for the revision.
 */
export function listResources(
  router: ResourceRouter,
  fixed: Resource[],
  ctx: RequestContext,
  params: Params,
): MaybePromise<Resource[]> {
  const lists: MaybePromise<Resource[]>[] = [];
  for (const { definition, wire } of router.templates.enabled()) {
    if (definition.list && allows(definition.guard, ctx, router.report)) {
      lists.push(definition.list(withLogger(ctx, wire.name)));
    }
  }
  if (router.modules.list.length > 0) {
    lists.push(
      router.modules.listed([], "resources/list", "resources", ctx, params, (module, local) =>
        module.listResources(ctx, local),
      ),
    );
  }
  if (lists.length === 0) return fixed;
  const features = featuresOf(ctx.protocolVersion);
  const join = (found: Resource[][]) => [...fixed, ...found.flat().map((resource) => shape(resource, features))];
  return lists.some(isPromiseLike) ? Promise.all(lists).then(join) : join(lists as Resource[][]);
}

/**
 * The caching hint of `resources/list` when a template's `list` computes part of it per request (each such
 * template's `listCache`, else 0 ms private; the narrowest wins), narrowed by each module's whole resource list's
 * hint (what it would carry alone); undefined when nothing in the tree computes (then `listCache` says it).
 */
export function resourcesListCache(router: ResourceRouter): CacheHint | undefined {
  let own: CacheHint | undefined;
  for (const { definition, listCache } of router.templates.enabled()) {
    if (definition.list) own = narrower(own, listCache ?? COMPUTED_LIST_CACHE);
  }
  let computed = own !== undefined;
  let modules: CacheHint | undefined;
  for (const { router: module } of router.modules.list) {
    const theirs = module.resourcesListCache();
    if (theirs) computed = true;
    else if (!module.capabilities().resources) continue;
    modules = narrower(modules, theirs ?? module.listCache("resources"));
  }
  if (!computed) return undefined;
  return modules ? narrower(own ?? router.cache.list, modules) : own;
}
