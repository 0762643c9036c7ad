import { ErrorCode, type RequestId } from "@toolsmith/core";
import { isPlainObject, messageIdText, rawBatchIds } from "@toolsmith/core/internal";
import { errorLine, idText } from "@toolsmith/core/transport";

/** What `urgentMessage` returns for a line that may wait its turn behind queued requests. */
export const NOT_URGENT: unique symbol = Symbol("not urgent");

// The client's answer to one of the server's requests, or a cancellation: what the requests in flight may await.
function isUrgent(message: unknown): boolean {
  if (!isPlainObject(message)) return false;
  if ("method" in message) return message.method === "notifications/cancelled" && !("id" in message);
  return "result" in message || "error" in message;
}

/** A batch (2025-03-26) that holds the client's answers beside requests: the answers must not wait, the rest may. */
export class MixedBatch {
  constructor(
    /** The whole batch, parsed. */
    readonly message: unknown[],
    /** Its responses (the client's answers to the server's requests). */
    readonly answers: Record<string, unknown>[],
  ) {}
}

function isAnswer(message: unknown): message is Record<string, unknown> {
  return isPlainObject(message) && !("method" in message) && ("result" in message || "error" in message);
}

/**
 * The parsed message when `text` must be handled as soon as it is read, never queued behind requests: the
 * client's answer to the server (a response, or a batch of nothing but responses and cancellations) or a
 * `notifications/cancelled`. A batch mixing answers with requests is a `MixedBatch`. Otherwise `NOT_URGENT`
 * (requests, other notifications, anything unparsable).
 */
export function urgentMessage(text: string): unknown {
  // Exact and cheap: such a line has the key "result" or "error" or the word cancelled, unless written with \u.
  if (!text.includes('"result"') && !text.includes('"error"') && !text.includes("cancelled") && !text.includes("\\u")) {
    return NOT_URGENT;
  }
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    return NOT_URGENT;
  }
  if (!Array.isArray(message)) return isUrgent(message) ? message : NOT_URGENT;
  if (message.length > 0 && message.every(isUrgent)) return message;
  const answers = message.filter(isAnswer);
  return answers.length > 0 ? new MixedBatch(message, answers) : NOT_URGENT;
}

/** The id a `notifications/cancelled` names, when `message` is one. */
export function cancelledId(message: unknown): RequestId | undefined {
  if (!isPlainObject(message) || message.method !== "notifications/cancelled" || !isPlainObject(message.params)) {
    return undefined;
  }
  const { requestId } = message.params;
  return typeof requestId === "string" || typeof requestId === "number" ? requestId : undefined;
}

/** The id of a request, when `message` is one (a notification or anything else has none). */
export function requestIdOf(message: unknown): RequestId | undefined {
  if (!isPlainObject(message) || typeof message.method !== "string") return undefined;
  const { id } = message;
  return typeof id === "string" || typeof id === "number" ? id : undefined;
}

/**
 * The reply refusing what `message` (read off `text`) asks, a request or the requests of a batch, with each id echoed
 * exactly as `text` carries it; undefined when it asks nothing.
 */
export function busyReply(message: unknown, text: string, why: string): string | undefined {
  const error = { code: ErrorCode.ServerError, message: why };
  if (!Array.isArray(message)) {
    return requestIdOf(message) === undefined ? undefined : errorLine(messageIdText(message, text), error);
  }
  const raw = rawBatchIds(text);
  const replies: string[] = [];
  message.forEach((entry, index) => {
    const id = requestIdOf(entry);
    if (id !== undefined)
      replies.push(errorLine(typeof id === "number" ? (raw[index] ?? idText(id)) : idText(id), error));
  });
  return replies.length > 0 ? `[${replies.join(",")}]` : undefined;
}
