import { ProtocolError, ProtocolErrorCode } from "@modelcontextprotocol/client";
import type { CallToolResult } from "@toolsmith/core";
import type { Straight } from "./http.js";

// What the lane (lane.ts) reads of a message from the remote, and a tools/call reply as the official client gives it.

/** Sent again through the official client. */
export const AGAIN = Symbol("again");

export interface Message {
  id?: unknown;
  method?: unknown;
  params?: unknown;
  result?: unknown;
  error?: unknown;
}

export function parseMessage(text: string): Message | undefined {
  try {
    const value = JSON.parse(text) as unknown;
    return plain(value) as Message | undefined;
  } catch {
    return undefined;
  }
}

/** A reply's result as it came, or its error as a ProtocolError (a request the gateway reads itself: tasks.ts). */
export function rawReply(message: Message): Record<string, unknown> {
  const error = plain(message.error);
  if (error) {
    const code = typeof error.code === "number" ? error.code : -32603;
    throw new ProtocolError(code, typeof error.message === "string" ? error.message : "error", error.data);
  }
  const result = plain(message.result);
  // A reply all the same: the link is sound (a thrown Error would drop it, and with it the tasks/cancel that
  // follows this garbage), the request's answer is garbage.
  if (!result) throw new ProtocolError(ProtocolErrorCode.InternalError, "the remote answered without a result object");
  return result;
}

// The reply as the client would give it: an error as a ProtocolError; a result without the 2026-07-28 resultType,
// and a non-object structuredContent given a text fallback; `input_required` sent again through the client.
export function reply(message: Message, modern: boolean): CallToolResult | typeof AGAIN {
  const error = plain(message.error);
  if (error) {
    const code = typeof error.code === "number" ? error.code : -32603;
    throw new ProtocolError(code, typeof error.message === "string" ? error.message : "error", error.data);
  }
  return toolResult(plain(message.result), modern);
}

/** A tools/call result (or a task's) checked as the client's schema would check it; `input_required` is AGAIN. */
export function toolResult(
  result: Record<string, unknown> | undefined,
  modern: boolean,
): CallToolResult | typeof AGAIN {
  if (!result) throw new Error("the remote answered tools/call without a result object");
  // What the client's schema would refuse in a tool result: content that is not a list of well-formed blocks, an
  // isError that is not a boolean (core would otherwise pass such a result on as structured data, a success).
  const blocks = result.content;
  if (blocks !== undefined && (!Array.isArray(blocks) || !blocks.every(isBlock))) {
    throw new Error("the remote answered tools/call with content that is not a list of content blocks");
  }
  if (result.isError !== undefined && typeof result.isError !== "boolean") {
    throw new Error("the remote answered tools/call with an isError that is not a boolean");
  }
  if (!modern) return result as unknown as CallToolResult;
  if (result.resultType !== "complete") {
    if (result.resultType === "input_required") return AGAIN;
    throw new Error(`the remote answered tools/call with resultType ${JSON.stringify(result.resultType)}`);
  }
  const { resultType: _, ...complete } = result;
  const structured = complete.structuredContent;
  const content = Array.isArray(complete.content) ? (complete.content as { type?: unknown }[]) : undefined;
  if (
    structured !== undefined &&
    (typeof structured !== "object" || structured === null || Array.isArray(structured)) &&
    !(content?.some((block) => block.type === "text") ?? false)
  ) {
    return { ...complete, content: [...(content ?? []), { type: "text", text: JSON.stringify(structured) }] } as never;
  }
  return complete as unknown as CallToolResult;
}

/** `value` as an object of fields, or undefined for anything else (an array, null, a primitive). */
export function plain(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** The words for a status a remote refuses with for now. */
export function refusedStatus(status: 429 | 503): string {
  return status === 429 ? "HTTP 429 Too Many Requests" : "HTTP 503 Service Unavailable";
}

// A content block with the fields its type requires (the client's schema checks each block so).
function isBlock(value: unknown): boolean {
  const block = plain(value);
  if (!block) return false;
  switch (block.type) {
    case "text":
      return typeof block.text === "string";
    case "image":
    case "audio":
      return typeof block.data === "string" && typeof block.mimeType === "string";
    case "resource_link":
      return typeof block.uri === "string" && typeof block.name === "string";
    case "resource": {
      const resource = plain(block.resource);
      return (
        typeof resource?.uri === "string" && (typeof resource.text === "string" || typeof resource.blob === "string")
      );
    }
    default:
      return false;
  }
}

/** What a remote that refused a call for now (429, 503) said: the status, its reason, when it asks to be called again. */
export function refusal(answer: Straight, text: string): string {
  const error = parseMessage(text)?.error as { message?: unknown } | undefined;
  const said = typeof error?.message === "string" ? `: ${error.message.slice(0, 200)}` : "";
  const status = refusedStatus(answer.status === 429 ? 429 : 503);
  const after = answer.header("retry-after")?.trim() ?? "";
  // Seconds, or an HTTP date; anything else is not repeated to the caller.
  const wait = /^\d{1,9}$/.test(after)
    ? `; Retry-After: ${after} s`
    : after.length <= 64 && /^[\x20-\x7e]+$/.test(after) && !Number.isNaN(Date.parse(after))
      ? `; Retry-After: ${after}`
      : "";
  return `refused the call with ${status}${said}${wait}`;
}
