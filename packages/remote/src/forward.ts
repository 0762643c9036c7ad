import { type Client, ProtocolError, SdkError } from "@modelcontextprotocol/client";
import { type CallToolResult, errorResult, type RequestContext } from "@toolsmith/core";
import type { Link } from "./link.js";

// A call forwarded to the remote: the caller's cancellation and progress travel with it, and whatever goes wrong
// (the remote down, too slow, its answer too large or malformed) comes back as an isError result the model reads.

/** What one forwarded request may cost. */
export interface RemoteBounds {
  /** How long the remote may take to answer one request (default 60 s). */
  readonly timeoutMs?: number;
  /** The largest answer taken from the remote, as JSON text (default 10 MB). */
  readonly maxResultBytes?: number;
}

export const DEFAULT_TIMEOUT_MS = 60_000;
export const DEFAULT_MAX_RESULT_BYTES = 10 * 1024 * 1024;

/** The answer's size as JSON text, or Infinity past `max` (measured without building one huge string). */
export function jsonBytes(value: unknown, max: number): number {
  const text = JSON.stringify(value);
  return text === undefined ? 0 : text.length > max ? Number.POSITIVE_INFINITY : text.length;
}

/** Why a request to the remote failed, in words for the model; whether the connection should be dropped. */
export function describeFailure(link: Link, error: unknown, timeoutMs: number): { message: string; broken: boolean } {
  if (ProtocolError.isInstance(error)) {
    return { message: `${link.label} answered with error ${error.code}: ${error.message}`, broken: false };
  }
  if (SdkError.isInstance(error) && /timeout/i.test(String(error.code))) {
    return { message: `${link.label} did not answer within ${timeoutMs} ms`, broken: true };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { message: `${link.label} failed: ${message}`, broken: true };
}

function isToolResult(value: unknown): value is CallToolResult {
  const content = (value as { content?: unknown } | null)?.content;
  return typeof value === "object" && value !== null && Array.isArray(content);
}

/** Run `request` against the remote with the caller's signal and the bounds; failures become thrown Errors. */
export async function forward<T>(
  link: Link,
  ctx: RequestContext,
  bounds: RemoteBounds,
  request: (client: Client, options: { signal: AbortSignal; timeout: number }) => Promise<T>,
): Promise<T> {
  const timeout = bounds.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const max = bounds.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES;
  const client = await link.client();
  let result: T;
  try {
    result = await request(client, { signal: ctx.signal, timeout });
  } catch (error) {
    if (ctx.signal.aborted) throw error;
    const { message, broken } = describeFailure(link, error, timeout);
    if (broken) link.drop(client);
    throw new Error(message, { cause: error });
  }
  if (jsonBytes(result, max) > max) throw new Error(`${link.label} answered with more than ${max} bytes`);
  return result;
}

/** A tools/call forwarded: the remote's result as it came (content, structuredContent, isError), or why not. */
export async function callTool(
  link: Link,
  name: string,
  args: unknown,
  ctx: RequestContext,
  bounds: RemoteBounds,
): Promise<CallToolResult> {
  try {
    const result = await forward(link, ctx, bounds, (client, options) =>
      client.callTool(
        { name, arguments: (args ?? {}) as Record<string, unknown> },
        { ...options, onprogress: (p) => reportProgress(ctx, p) },
      ),
    );
    if (!isToolResult(result)) return errorResult(`${link.label} answered tools/call without a content array`);
    return result;
  } catch (error) {
    if (ctx.signal.aborted) throw error;
    return errorResult((error as Error).message);
  }
}

function reportProgress(ctx: RequestContext, p: { progress: number; total?: number; message?: string }): void {
  try {
    ctx.progress(p.progress, p.total, p.message);
  } catch {
    // A remote whose progress does not grow is not the caller's problem: that step is not relayed.
  }
}
