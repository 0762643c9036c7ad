import { InputRequired } from "../context/ask.js";
import type { RequestContext } from "../context/context.js";
import { UnfitAnswer } from "../context/elicit-answer.js";
import type { LogEntry } from "../context/logger.js";
import { errorResult, isCallToolResult, structured, toCallToolResult } from "../protocol/results.js";
import type { RevisionFeatures } from "../protocol/revision.js";
import { shapeToolResult } from "../protocol/revision-shape.js";
import { type CompiledSchema, describeIssues } from "../schema/schema-adapter.js";
import { isMcpError, messageOf } from "../wire/errors.js";
import { andThen, attempt, type MaybePromise } from "../wire/maybe.js";
import type { CallToolResult } from "../wire/types.js";
import type { CompiledTool } from "./compile.js";

/** Run a tool's handler on checked arguments: what it throws becomes a result the model reads, and is reported. */
export function runTool(
  tool: CompiledTool,
  value: unknown,
  ctx: RequestContext,
  features: RevisionFeatures,
  report: (entry: LogEntry) => void,
): MaybePromise<CallToolResult> {
  const { name } = tool.wire;
  return attempt(
    () =>
      andThen(tool.definition.handler(value as never, ctx), (raw) => {
        if (tool.output) return checkOutput(tool.output, name, raw, features);
        if (raw === undefined) warnUndefined(tool, ctx, report);
        return shapeToolResult(toCallToolResult(raw), features);
      }),
    (error) => {
      // A protocol error is the call's own, but for an answer that does not fit its form: the tool's failure.
      if ((isMcpError(error) && !(error instanceof UnfitAnswer)) || error instanceof InputRequired) throw error;
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
    },
  );
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
