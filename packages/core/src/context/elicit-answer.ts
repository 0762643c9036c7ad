import type { Validation } from "../schema/schema-adapter.js";
import { describeIssues } from "../schema/validation-issues.js";
import { McpError, shown } from "../wire/errors.js";
import { ErrorCode } from "../wire/json-rpc.js";

// The client's answer to an elicitation, checked before the handler sees it: an answer that does not fit the
// question fails the request the way bad params do, never reaching the handler as a typed lie.

/** The client's answer does not fit the form asked: -32602 for a prompt or a resource, an `isError` result for a tool. */
export class UnfitAnswer extends McpError {}

/** The answer's action; an UnfitAnswer naming it when it is not accept, decline or cancel. */
export function answerAction(answer: Record<string, unknown>): "accept" | "decline" | "cancel" {
  const { action } = answer;
  if (action === "accept" || action === "decline" || action === "cancel") return action;
  throw new UnfitAnswer(
    ErrorCode.InvalidParams,
    `The client's elicitation answer has no valid action (accept, decline or cancel): ${shown(action)}`,
  );
}

/** The checked content of an accepted answer to the question `message`; an UnfitAnswer naming each field that does not fit. */
export function fittingContent<T>(message: string, checked: Validation<T>): T {
  if (checked.ok) return checked.value;
  throw new UnfitAnswer(
    ErrorCode.InvalidParams,
    `The client's answer to "${message}" does not fit the requested schema:\n${describeIssues(checked.issues)}`,
    { issues: checked.issues },
  );
}
