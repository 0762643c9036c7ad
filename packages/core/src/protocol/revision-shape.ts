import { isPlainObject } from "../wire/json-rpc.js";
import type { CallToolResult, ContentBlock, GetPromptResult } from "../wire/types.js";
import type { RevisionFeatures } from "./revision.js";

// Drop what an older revision does not define; the full form is the newest revision's.
export function shape<T extends { title?: unknown; icons?: unknown; outputSchema?: unknown; arguments?: unknown }>(
  item: T,
  features: RevisionFeatures,
): T {
  if (features.titlesAndStructuredOutput && features.icons && features.anyStructuredContent) return item;
  const copy = { ...item };
  if (!features.titlesAndStructuredOutput) {
    delete copy.title;
    delete copy.outputSchema;
    // A prompt's arguments have titles from 2025-06-18 on, as the prompt itself does.
    if (Array.isArray(copy.arguments)) copy.arguments = copy.arguments.map(untitled);
  }
  if (!features.icons) delete copy.icons;
  if (!features.anyStructuredContent && isPlainObject(copy.outputSchema) && copy.outputSchema.type !== "object") {
    delete copy.outputSchema;
  }
  return copy;
}

function untitled(argument: unknown): unknown {
  if (!isPlainObject(argument) || !("title" in argument)) return argument;
  const { title: _dropped, ...rest } = argument;
  return rest;
}

// 2025-03-26 has no resource_link: a link is told as text, so the model still sees where to look.
function linkAsText(block: ContentBlock): ContentBlock {
  if (block.type !== "resource_link") return block;
  return { type: "text", text: `${block.name}: ${block.uri}${block.description ? ` (${block.description})` : ""}` };
}

/** A prompt's result as the revision has it: a message's resource link is told as text where there is none. */
export function shapePromptResult(result: GetPromptResult, features: RevisionFeatures): GetPromptResult {
  if (features.titlesAndStructuredOutput || !result.messages.some((m) => m.content.type === "resource_link")) {
    return result;
  }
  return { ...result, messages: result.messages.map((m) => ({ ...m, content: linkAsText(m.content) })) };
}

// structuredContent is an object before 2026-07-28 and absent before 2025-06-18; its JSON text stays either way.
// `owned`: `result` was made for this call, so it may be completed in place rather than copied.
export function shapeToolResult(result: CallToolResult, features: RevisionFeatures, owned = false): CallToolResult {
  if (result.isError === undefined) {
    if (owned) result.isError = false;
    else result = { ...result, isError: false };
  }
  if (!features.titlesAndStructuredOutput && result.content.some((block) => block.type === "resource_link")) {
    result = { ...result, content: result.content.map(linkAsText) };
  }
  if (!("structuredContent" in result)) return result;
  const keep =
    features.anyStructuredContent || (features.titlesAndStructuredOutput && isPlainObject(result.structuredContent));
  if (keep) return result;
  const { structuredContent: _dropped, ...rest } = result;
  return rest;
}
