import type { RequestContext } from "../context/context.js";
import type { LogEntry } from "../context/logger.js";
import { runOwn } from "../middleware/compose.js";
import { toGetPromptResult } from "../protocol/results.js";
import { featuresOf } from "../protocol/revision.js";
import { shapePromptResult } from "../protocol/revision-shape.js";
import { describeIssues } from "../schema/validation-issues.js";
import { McpError } from "../wire/errors.js";
import { ErrorCode } from "../wire/json-rpc.js";
import { andThen, type MaybePromise } from "../wire/maybe.js";
import type { GetPromptResult } from "../wire/types.js";
import type { CompiledPrompt } from "./compile.js";
import type { PromptDefinition } from "./definitions.js";
import { allows } from "./guards.js";
import { type ModuleRouter, type Modules, NO_PARAMS, type Params } from "./mounts.js";
import { demand, through } from "./scopes.js";
import type { Table } from "./table.js";

/** What `prompts/get` needs of a router: its prompts, where it reports, and its modules (routers alike). */
export interface PromptRouter extends ModuleRouter {
  readonly prompts: Table<PromptDefinition, CompiledPrompt>;
  readonly modules: Modules<PromptRouter>;
  readonly report: (entry: LogEntry) => void;
  /** The scopes every operation of its server needs (`createServer({ scopes })`). */
  readonly required: readonly string[] | undefined;
}

/**
 * `prompts/get` of `name` on `router`, or in the module its prefix names; `params` as the request had them, `shown`
 * the name the client sent, which every answer about the prompt uses; `above`: the scopes of the servers it is
 * served through.
 */
export function getPrompt(
  router: PromptRouter,
  name: string,
  args: Record<string, string> | undefined,
  ctx: RequestContext,
  params: Params,
  shown: string,
  above?: readonly string[],
): MaybePromise<GetPromptResult> {
  const prompt = router.prompts.get(name);
  if (!prompt || !allows(prompt.definition.guard, ctx, router.report)) {
    const served = router.modules.inModule("prompt", name, params, ctx, (module, rest, local) =>
      getPrompt(module, rest, args, ctx, local, shown, through(above, router.required)),
    );
    if (served) return served;
    throw new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${shown}`);
  }
  if (above !== undefined || router.required !== undefined || prompt.scopes !== undefined) {
    demand(above, router.required, prompt.scopes, ctx, { key: prompt, what: `prompt "${shown}"` }, router.report);
  }
  const { use } = prompt.definition;
  if (use === undefined) return runPrompt(prompt, args, ctx, shown);
  const local = params === NO_PARAMS ? { name, arguments: args } : params;
  return runOwn(use, "prompts/get", "get", local, ctx, () => runPrompt(prompt, args, ctx, shown));
}

// Every required argument present, the arguments checked against the prompt's schema, then its handler.
function runPrompt(
  prompt: CompiledPrompt,
  args: Record<string, string> | undefined,
  ctx: RequestContext,
  shown: string,
): MaybePromise<GetPromptResult> {
  const { definition } = prompt;
  const run = (value: unknown) =>
    andThen(definition.handler(value as never, ctx), (raw) =>
      shapePromptResult(toGetPromptResult(raw, definition.description), featuresOf(ctx.protocolVersion)),
    );
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
    const message = `Invalid arguments for prompt "${shown}":\n${describeIssues(checked.issues)}`;
    throw new McpError(ErrorCode.InvalidParams, message, { issues: checked.issues });
  });
}
