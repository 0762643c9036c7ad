import { InputRequired } from "../context/ask.js";
import type { RequestContext } from "../context/context.js";
import { UnfitAnswer } from "../context/elicit-answer.js";
import type { LogEntry } from "../context/logger.js";
import { RequestContextImpl, type TaskHost } from "../context/request-context.js";
import { isEngineUnavailable } from "../engine/engine.js";
import { runOwn } from "../middleware/compose.js";
import { type RequestedTask, requestedTask, taskAugmentationRefused } from "../protocol/core-tasks.js";
import { errorResult, isCallToolResult, structured, toCallToolResult } from "../protocol/results.js";
import { featuresOf, type RevisionFeatures } from "../protocol/revision.js";
import { shapeToolResult } from "../protocol/revision-shape.js";
import { declaresTasks, type TaskPolicy, tasksRequired } from "../protocol/tasks.js";
import type { CompiledSchema } from "../schema/schema-adapter.js";
import { describeIssues } from "../schema/validation-issues.js";
import { isMcpError, McpError, messageOf } from "../wire/errors.js";
import { ErrorCode } from "../wire/json-rpc.js";
import { andThen, isPromiseLike, type MaybePromise } from "../wire/maybe.js";
import type { CallToolResult, Tool } from "../wire/types.js";
import type { CompiledTool } from "./compile.js";
import type { ToolDefinition } from "./definitions.js";
import { allows } from "./guards.js";
import { type ModuleRouter, type Modules, NO_PARAMS, type Params } from "./mounts.js";
import { demand, through } from "./scopes.js";
import type { Table } from "./table.js";

// tools/call: the tool this caller may use (here or in a module), its own middleware, its arguments checked, its
// handler run, and what it returns or throws made a result.

/** What `tools/call` needs of a router: its tools, where it reports, and its modules (routers alike). */
export interface ToolRouter extends ModuleRouter {
  readonly tools: Table<ToolDefinition, CompiledTool>;
  readonly modules: Modules<ToolRouter>;
  readonly report: (entry: LogEntry) => void;
  /** The scopes every operation of its server needs (`createServer({ scopes })`). */
  readonly required: readonly string[] | undefined;
}

/** The transport's own check of a tools/call against the tool it reaches (a tool this caller may use). */
export type ToolCheck = (tool: Tool) => void;

/**
 * `tools/call` of `name` on `router`, or in the module its prefix names; `params` as the request had them, `check`
 * the transport's own, `shown` the name the client sent, which every answer about the tool uses; `above`: the scopes
 * of the servers it is served through.
 */
export function callTool(
  router: ToolRouter,
  name: string,
  args: Record<string, unknown> | undefined,
  ctx: RequestContext,
  params: Params,
  check: ToolCheck | undefined,
  shown: string,
  above?: readonly string[],
): MaybePromise<CallToolResult> {
  const tool = router.tools.get(name);
  if (!tool || !allows(tool.definition.guard, ctx, router.report)) {
    const served = router.modules.inModule("tool", name, params, ctx, (module, rest, local) =>
      callTool(module, rest, args, ctx, local, check, shown, through(above, router.required)),
    );
    if (served) return served;
    throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${shown}`);
  }
  // The caller's scopes, once the tool is known to be theirs and before anything of it runs (its arguments too).
  if (above !== undefined || router.required !== undefined || tool.scopes !== undefined) {
    demand(above, router.required, tool.scopes, ctx, { key: tool, what: `tool "${shown}"` }, router.report);
  }
  // Only once the tool is known to be this caller's: a refused one answers as unknown, whatever was sent.
  check?.(tool.wire);
  const { use } = tool.definition;
  const local = params === NO_PARAMS ? { name, arguments: args } : params;
  const run = (inner: RequestContext): MaybePromise<CallToolResult> =>
    use === undefined
      ? runTool(tool, args, inner, shown, router.report)
      : runOwn(use, "tools/call", "call", local, inner, () => runTool(tool, args, inner, shown, router.report));
  // Decided before anything of the tool runs: a task, a refusal, or a request as any other.
  if (featuresOf(ctx.protocolVersion).tasks === "core") {
    const task = asCoreTask(tool, ctx, local, shown, run);
    if (task !== undefined) return task;
  } else if (tool.task !== undefined) {
    const task = asTask(tool, tool.task, ctx, shown, run);
    if (task !== undefined) return task;
  }
  return run(ctx);
}

// 2025-11-25: a task when the request asked for one (`params.task`) and the tool may run as one; -32601 when the
// tool cannot run as asked; undefined when it runs as a request. A server that declares no tasks ignores the field.
function asCoreTask(
  tool: CompiledTool,
  ctx: RequestContext,
  params: Params,
  shown: string,
  run: (inner: RequestContext) => MaybePromise<CallToolResult>,
): MaybePromise<CallToolResult> | undefined {
  const host = ctx instanceof RequestContextImpl ? ctx.tasks : undefined;
  if (host === undefined || !host.tasking()) return undefined;
  const requested = requestedTask(params as Record<string, unknown>);
  const policy = tool.task;
  if (requested === undefined) {
    if (policy?.support === "required") throw taskAugmentationRefused(shown, true);
    return undefined;
  }
  if (policy === undefined) throw taskAugmentationRefused(shown, false);
  if (policy.detach === "manual") return detachable(host, tool, policy, ctx as RequestContextImpl, run, requested);
  return host.start(
    ctx as RequestContextImpl,
    tool.wire.name,
    policy,
    run,
    requested,
  ) as unknown as Promise<CallToolResult>;
}

// A call of a tool that may be a task: the CreateTaskResult when it becomes one; -32021 when it must be one and the
// request cannot take it; undefined when it runs as a request.
function asTask(
  tool: CompiledTool,
  policy: TaskPolicy,
  ctx: RequestContext,
  shown: string,
  run: (inner: RequestContext) => MaybePromise<CallToolResult>,
): MaybePromise<CallToolResult> | undefined {
  const declared = declaresTasks(featuresOf(ctx.protocolVersion), ctx.clientCapabilities);
  if (!declared) {
    if (policy.support === "required") throw tasksRequired(`Tool "${shown}"`);
    return undefined;
  }
  const host = ctx instanceof RequestContextImpl ? ctx.tasks : undefined;
  if (host === undefined) return undefined;
  if (policy.detach === "manual") return detachable(host, tool, policy, ctx as RequestContextImpl, run);
  return host.start(ctx as RequestContextImpl, tool.wire.name, policy, run) as unknown as Promise<CallToolResult>;
}

// `detach: "manual"`: a request until the handler calls `ctx.detach()`; from then its reply is the task, and what
// the handler does next is the task's.
function detachable(
  host: TaskHost,
  tool: CompiledTool,
  policy: TaskPolicy,
  ctx: RequestContextImpl,
  run: (inner: RequestContext) => MaybePromise<CallToolResult>,
  requested?: RequestedTask,
): Promise<CallToolResult> {
  return new Promise<CallToolResult>((resolve, reject) => {
    let detached: Promise<void> | undefined;
    let returned = false;
    // The handler's outcome, kept when it comes before the task has started to wait for it.
    let outcome: { result?: unknown; error?: unknown } | undefined;
    let finish: ((outcome: { result?: unknown; error?: unknown }) => void) | undefined;
    const settle = (done: { result?: unknown; error?: unknown }) => {
      returned = true;
      if (detached === undefined) return "error" in done ? reject(done.error) : resolve(done.result as CallToolResult);
      if (finish === undefined) outcome = done;
      else finish(done);
    };
    // One task however often it is called; none once the handler has answered as a request.
    ctx.detacher = () => {
      if (detached !== undefined || returned) return detached ?? Promise.resolve();
      const created = host.start(
        ctx,
        tool.wire.name,
        policy,
        (task) => {
          ctx.adopt(task);
          return new Promise((done, fail) => {
            finish = (ended) => ("error" in ended ? fail(ended.error) : done(ended.result));
            if (outcome !== undefined) finish(outcome);
          });
        },
        requested,
      );
      created.then((result) => resolve(result as unknown as CallToolResult), reject);
      detached = created.then(() => {});
      return detached;
    };
    Promise.resolve()
      .then(() => run(ctx))
      .then(
        (result) => settle({ result }),
        (error: unknown) => settle({ error }),
      );
  });
}

// Run a tool the caller may use on the arguments it sent: checked against its input (a mismatch is an `isError`
// result or -32602, as the revision has it), then its handler. Closures only where something is awaited: a
// synchronous validator and handler answer without one.
function runTool(
  tool: CompiledTool,
  args: Record<string, unknown> | undefined,
  ctx: RequestContext,
  shown: string,
  report: (entry: LogEntry) => void,
): MaybePromise<CallToolResult> {
  const features = featuresOf(ctx.protocolVersion);
  // A tool that takes no arguments sees none, whatever was sent (as unknown keys are dropped for those that do).
  if (!tool.input) return runHandler(tool, {}, ctx, features, report);
  const checked = tool.input.validate(args ?? {});
  if (isPromiseLike<Validated>(checked)) {
    return Promise.resolve(checked).then((settled) => runValidated(tool, settled, ctx, shown, features, report));
  }
  return runValidated(tool, checked, ctx, shown, features, report);
}

type Validated = Awaited<ReturnType<CompiledSchema["validate"]>>;

function runValidated(
  tool: CompiledTool,
  checked: Validated,
  ctx: RequestContext,
  shown: string,
  features: RevisionFeatures,
  report: (entry: LogEntry) => void,
): MaybePromise<CallToolResult> {
  if (checked.ok) return runHandler(tool, checked.value, ctx, features, report);
  const message = `Invalid arguments for tool "${shown}":\n${describeIssues(checked.issues)}`;
  if (features.validationErrorsAsResults) return errorResult(message);
  throw new McpError(ErrorCode.InvalidParams, message, { issues: checked.issues });
}

// The handler on checked arguments: what it throws (or rejects with, or its result's shaping throws) becomes a
// result the model reads, and is reported.
function runHandler(
  tool: CompiledTool,
  value: unknown,
  ctx: RequestContext,
  features: RevisionFeatures,
  report: (entry: LogEntry) => void,
): MaybePromise<CallToolResult> {
  let result: MaybePromise<CallToolResult>;
  try {
    const raw = tool.definition.handler(value as never, ctx);
    result = isPromiseLike(raw)
      ? Promise.resolve(raw).then((settled) => handled(tool, settled, ctx, features, report))
      : handled(tool, raw, ctx, features, report);
  } catch (error) {
    return failed(tool, error, ctx, report);
  }
  if (!isPromiseLike<CallToolResult>(result)) return result;
  return Promise.resolve(result).then(undefined, (error: unknown) => failed(tool, error, ctx, report));
}

// What the handler returned, as the result: checked against the output schema, shaped for the revision.
function handled(
  tool: CompiledTool,
  raw: unknown,
  ctx: RequestContext,
  features: RevisionFeatures,
  report: (entry: LogEntry) => void,
): MaybePromise<CallToolResult> {
  if (tool.output) return checkOutput(tool.output, tool.wire.name, raw, features);
  if (raw === undefined) warnUndefined(tool, ctx, report);
  const result = toCallToolResult(raw);
  // A result made here rather than the handler's own object: completed in place, not copied.
  return shapeToolResult(result, features, result !== raw);
}

// What the handler threw: a protocol error or a question for the client goes on as itself; anything else is the
// tool's failure, an isError result.
function failed(
  tool: CompiledTool,
  error: unknown,
  ctx: RequestContext,
  report: (entry: LogEntry) => void,
): CallToolResult {
  const { name } = tool.wire;
  // A protocol error is the call's own, but for an answer that does not fit its form: the tool's failure.
  // The engine's store out of reach is the request's failure (-32000 "Service unavailable"), not the tool's.
  if ((isMcpError(error) && !(error instanceof UnfitAnswer)) || error instanceof InputRequired) throw error;
  if (isEngineUnavailable(error)) throw error;
  // A tool reporting failure with a plain Error is expected: the model reads it; not an incident. A TypeError
  // and the like are more likely bugs: a warning.
  const expected = error instanceof Error && (error.constructor === Error || isMcpError(error));
  // A handler stopped by a cancellation (its AbortError, an abandoned question) did what it was asked to.
  const stopped = ctx.signal.aborted;
  report({
    level: stopped ? "debug" : expected ? "info" : "warning",
    message: `tool ${name} (id ${JSON.stringify(ctx.requestId)}) failed: ${error instanceof Error ? String(error) : messageOf(error)}`,
    error,
    method: "tools/call",
    requestId: ctx.requestId,
    tool: name,
  });
  return errorResult(messageOf(error));
}

const WARNED_UNDEFINED = new WeakSet<CompiledTool>();

// A handler that forgot to return sends an empty result, which the model reads as nothing: say so once per tool.
function warnUndefined(tool: CompiledTool, ctx: RequestContext, report: (entry: LogEntry) => void): void {
  if (WARNED_UNDEFINED.has(tool)) return;
  WARNED_UNDEFINED.add(tool);
  const { name } = tool.wire;
  report({
    level: "warning",
    message: `tool ${name} returned undefined, so the client got an empty result ({"content":[]}): return what the model should read (a string, an object, content blocks), or null for an empty result on purpose; said once per tool`,
    method: "tools/call",
    requestId: ctx.requestId,
    tool: name,
  });
}

// With an output schema, what the handler returns is the structured content (unless it is a whole result);
// the validated value is what goes out, so defaults are filled in and unknown keys are gone, as listed.
function checkOutput(
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
