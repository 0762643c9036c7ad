import type { RequestContext } from "../context/context.js";
import type { LogEntry } from "../context/logger.js";
import { nameLogger } from "../context/request-context.js";
import { type Middleware, runOwn } from "../middleware/compose.js";
import { McpError } from "../wire/errors.js";
import { ErrorCode, isPlainObject } from "../wire/json-rpc.js";
import { andThen, type MaybePromise } from "../wire/maybe.js";
import type { CompiledPrompt, CompiledTemplate } from "./compile.js";
import type { Completer, Completion, PromptDefinition, ResourceTemplateDefinition } from "./definitions.js";
import { allows } from "./guards.js";
import { type ModuleRouter, type Modules, type Mount, NO_PARAMS, type Params } from "./mounts.js";
import { demand, through } from "./scopes.js";
import type { Table } from "./table.js";

/** What `completion/complete` needs of a router: its prompts and templates, where it reports, and its modules. */
export interface CompletionRouter extends ModuleRouter {
  readonly prompts: Table<PromptDefinition, CompiledPrompt>;
  readonly templates: Table<ResourceTemplateDefinition, CompiledTemplate>;
  readonly modules: Modules<CompletionRouter>;
  readonly report: (entry: LogEntry) => void;
  /** The scopes every operation of its server needs (`createServer({ scopes })`). */
  readonly required: readonly string[] | undefined;
}

/** What `completion/complete` refers to. */
export type CompleteRef = { type: string; name?: string; uri?: string };

/** Suggestions, as `completion/complete` answers them. */
export type CompletionResult = { values: string[]; total?: number; hasMore?: boolean };

const MAX_COMPLETIONS = 100;

/** True when one of `router`'s own enabled prompts or templates has a completer (the completions capability). */
export function hasCompleters(router: CompletionRouter): boolean {
  for (const prompt of router.prompts.enabled()) if (prompt.completers.size > 0) return true;
  for (const template of router.templates.enabled()) if (template.completers.size > 0) return true;
  return false;
}

/**
 * `completion/complete` on `router`: suggestions for a prompt argument or a template variable, its modules
 * included; `shown` is the prompt's name as the client sent it. A caller completes only what it could use: the
 * scopes of the prompt or template (and of the servers it is served through, `above`) are checked first.
 */
export function complete(
  router: CompletionRouter,
  ref: CompleteRef,
  argument: { name: string; value: string },
  known: Readonly<Record<string, string>>,
  ctx: RequestContext,
  params: Params,
  shown: string | undefined,
  above?: readonly string[],
): MaybePromise<CompletionResult> {
  let completers: ReadonlyMap<string, Completer> | undefined;
  let use: readonly Middleware[] | undefined;
  let item: { readonly scopes: readonly string[] | undefined } | undefined;
  let what = "";
  const below = () => through(above, router.required);
  if (ref.type === "ref/prompt") {
    const prompt = router.prompts.get(ref.name ?? "");
    if (!prompt) {
      const inModule = router.modules.find(ref.name ?? "");
      if (inModule) {
        const { mount, rest } = inModule;
        const local = { ...ref, name: rest };
        return completeIn(mount, { ...params, ref: local }, ctx, (localParams) =>
          complete(mount.router, local, argument, known, ctx, localParams, shown, below()),
        );
      }
    }
    completers = prompt && allows(prompt.definition.guard, ctx, router.report) ? prompt.completers : undefined;
    if (!completers) throw new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${shown}`);
    use = prompt?.definition.use;
    item = prompt;
    what = `prompt "${shown}"`;
    // A completer logs under its prompt's name, as the client knows it (`github.triage` from a module).
    nameLogger(ctx, shown ?? "");
  } else if (ref.type === "ref/resource") {
    const template = router.templates.get(ref.uri ?? "");
    if (!template) {
      // A template's URI names no module: only one that offers it to this caller is asked.
      const owner = router.modules.list.find((mount) => offers(mount.router, ref.uri ?? "", ctx));
      if (owner) {
        return completeIn(owner, params, ctx, (local) =>
          complete(owner.router, ref, argument, known, ctx, local, shown, below()),
        );
      }
    }
    completers = template && allows(template.definition.guard, ctx, router.report) ? template.completers : undefined;
    if (!completers) throw new McpError(ErrorCode.InvalidParams, `Unknown resource template: ${ref.uri}`);
    use = template?.definition.use;
    item = template;
    what = `resource template "${ref.uri}"`;
    if (template) nameLogger(ctx, template.wire.name);
  } else {
    throw new McpError(ErrorCode.InvalidParams, `Invalid ref type: ${JSON.stringify(ref.type)}`);
  }
  if (item !== undefined && (above !== undefined || router.required !== undefined || item.scopes !== undefined)) {
    demand(above, router.required, item.scopes, ctx, { key: item, what }, router.report);
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
function completeIn(
  mount: Mount<CompletionRouter>,
  local: Params,
  ctx: RequestContext,
  serve: (local: Params) => MaybePromise<CompletionResult>,
): MaybePromise<CompletionResult> {
  const wrapped = () => andThen(serve(local), (completion) => ({ completion }));
  return andThen(runOwn(mount.middleware(), "completion/complete", "complete", local, ctx, wrapped), (result) =>
    completionOf(result, `a middleware of ${mount.source}`),
  );
}

// Whether the template `uriTemplate` is served to this caller, here or in a module below.
function offers(router: CompletionRouter, uriTemplate: string, ctx: RequestContext): boolean {
  const template = router.templates.get(uriTemplate);
  if (template) return allows(template.definition.guard, ctx, router.report);
  return router.modules.list.some((mount) => offers(mount.router, uriTemplate, ctx));
}

// What a middleware answered for completion/complete: its `completion`.
function completionOf(result: Record<string, unknown>, who: string): CompletionResult {
  if (!isPlainObject(result.completion))
    throw new TypeError(`${who} answered completion/complete without a completion`);
  return result.completion as CompletionResult;
}

function toCompletion(found: Completion): CompletionResult {
  const all = (Array.isArray(found) ? found : Array.isArray(found?.values) ? found.values : []).map(String);
  const values = all.slice(0, MAX_COMPLETIONS);
  const total = Array.isArray(found) ? all.length : (found.total ?? all.length);
  const hasMore = Array.isArray(found) ? all.length > MAX_COMPLETIONS : (found.hasMore ?? total > values.length);
  return { values, total, hasMore };
}
