import { isPlainObject } from "../wire/json-rpc.js";
import type { CallToolResult, ContentBlock, GetPromptResult, ReadResourceResult } from "../wire/types.js";
import type { RevisionFeatures } from "./revision.js";

// Drop what an older revision does not define; the full form is the newest revision's.
export function shape<
  T extends {
    title?: unknown;
    icons?: unknown;
    outputSchema?: unknown;
    arguments?: unknown;
    _meta?: unknown;
    annotations?: unknown;
  },
>(item: T, features: RevisionFeatures): T {
  if (features.titlesAndStructuredOutput && features.icons && features.anyStructuredContent) return item;
  const copy = { ...item };
  if (!features.titlesAndStructuredOutput) {
    delete copy.title;
    delete copy.outputSchema;
    // A prompt's arguments have titles from 2025-06-18 on, as the prompt itself does.
    if (Array.isArray(copy.arguments)) copy.arguments = copy.arguments.map(untitled);
  }
  if (!features.itemMeta) {
    delete copy._meta;
    if (dated(copy.annotations)) copy.annotations = undated(copy.annotations);
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

function dated(annotations: unknown): annotations is Record<string, unknown> {
  return isPlainObject(annotations) && "lastModified" in annotations;
}

function undated(annotations: Record<string, unknown>): Record<string, unknown> {
  const { lastModified: _dropped, ...rest } = annotations;
  return rest;
}

// Without `_meta` and `annotations.lastModified` (2025-03-26); the same object when it has neither.
function unmeta<T extends { _meta?: unknown; annotations?: unknown }>(item: T): T {
  const stale = dated(item.annotations);
  if (!("_meta" in item) && !stale) return item;
  const { _meta: _dropped, ...rest } = item;
  if (stale) (rest as { annotations?: unknown }).annotations = undated(item.annotations as Record<string, unknown>);
  return rest as T;
}

// One block as the revision has it (the same object when nothing changes): 2025-03-26 has no resource_link (a link
// is told as text, so the model still sees where to look), no `_meta` on blocks and no `lastModified`; 2025-06-18
// has no `icons` on a link.
function shapeBlock(block: ContentBlock, features: RevisionFeatures): ContentBlock {
  if (block.type === "resource_link") {
    if (!features.titlesAndStructuredOutput) {
      return { type: "text", text: `${block.name}: ${block.uri}${block.description ? ` (${block.description})` : ""}` };
    }
    if (features.icons || !("icons" in block)) return block;
    const { icons: _dropped, ...rest } = block;
    return rest;
  }
  if (features.itemMeta) return block;
  const shaped = unmeta(block);
  if (shaped.type !== "resource") return shaped;
  const resource = unmeta(shaped.resource);
  return resource === shaped.resource ? shaped : { ...shaped, resource };
}

// The blocks as the revision has them: the same array when no block changes.
function shapeBlocks(blocks: ContentBlock[], features: RevisionFeatures): ContentBlock[] {
  let shaped: ContentBlock[] | undefined;
  for (let i = 0; i < blocks.length; i++) {
    const block = shapeBlock(blocks[i] as ContentBlock, features);
    if (block === blocks[i]) continue;
    shaped ??= blocks.slice();
    shaped[i] = block;
  }
  return shaped ?? blocks;
}

/** A prompt's result as the revision has it: each message's block shaped as a tool result's are. */
export function shapePromptResult(result: GetPromptResult, features: RevisionFeatures): GetPromptResult {
  // 2025-11-25 and later define every field: nothing to look at.
  if (features.icons) return result;
  let changed = false;
  const messages = result.messages.map((message) => {
    const content = shapeBlock(message.content, features);
    if (content === message.content) return message;
    changed = true;
    return { ...message, content };
  });
  return changed ? { ...result, messages } : result;
}

/** A read's result as the revision has it: 2025-03-26 has no `_meta` on resource contents. */
export function shapeReadResult<T extends ReadResourceResult>(result: T, features: RevisionFeatures): T {
  if (features.itemMeta || !result.contents.some((contents) => "_meta" in contents)) return result;
  return { ...result, contents: result.contents.map(unmeta) };
}

// structuredContent is an object before 2026-07-28 and absent before 2025-06-18; its JSON text stays either way.
// `owned`: `result` was made for this call, so it may be completed in place rather than copied.
export function shapeToolResult(result: CallToolResult, features: RevisionFeatures, owned = false): CallToolResult {
  if (result.isError === undefined) {
    if (owned) result.isError = false;
    else result = { ...result, isError: false };
  }
  // 2025-11-25 and later define every field of every block: no per-call walk.
  if (!features.icons) {
    const content = shapeBlocks(result.content, features);
    if (content !== result.content) result = { ...result, content };
  }
  if (!("structuredContent" in result)) return result;
  const keep =
    features.anyStructuredContent || (features.titlesAndStructuredOutput && isPlainObject(result.structuredContent));
  if (keep) return result;
  const { structuredContent: _dropped, ...rest } = result;
  return rest;
}
