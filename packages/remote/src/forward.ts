import { type Client, ProtocolError, SdkError, type Tool } from "@modelcontextprotocol/client";
import {
  type CallToolResult,
  ErrorCode,
  errorResult,
  isLogLevel,
  McpError,
  type RequestContext,
} from "@toolsmith/core";
import { MetaKey } from "@toolsmith/core/transport";
import { AGAIN, type Lane } from "./lane.js";
import type { Link } from "./link.js";
import type { Notes } from "./notes.js";
import { refusedStatus } from "./reply.js";

// A call forwarded to the remote: the caller's cancellation and progress travel with it, and whatever goes wrong
// (the remote down, too slow, its answer too large or malformed) comes back as an isError result the model reads.

/** What one forwarded request may cost. */
export interface RemoteBounds {
  /** How long the remote may take to answer one request (default 60 s). */
  readonly timeoutMs?: number;
  /** The largest answer taken from the remote, as JSON text (default 10 MB). */
  readonly maxResultBytes?: number;
}

/** The bounds, and the notes that hear what the remote says while it serves a request. */
export interface Forwarding extends RemoteBounds {
  readonly notes: Notes;
  /** A tools/call sent straight over HTTP (lane.ts); absent for a stdio remote. */
  readonly lane?: Lane;
}

/** What a forwarded request is given: the signal and time-out, and the `_meta` to send (progress token, log level). */
export interface ForwardOptions {
  readonly signal: AbortSignal;
  readonly timeout: number;
  readonly meta: Record<string, unknown>;
}

export const DEFAULT_TIMEOUT_MS = 60_000;
const NEEDS_CAPABILITY = ErrorCode.MissingRequiredClientCapability;
export const DEFAULT_MAX_RESULT_BYTES = 10 * 1024 * 1024;

/** The answer's size as JSON text, or Infinity past `max` (measured without building one huge string). */
export function jsonBytes(value: unknown, max: number): number {
  const text = JSON.stringify(value);
  return text === undefined ? 0 : text.length > max ? Number.POSITIVE_INFINITY : text.length;
}

/** The longest failure message of the client's passed on (its HTTP errors carry the remote's whole body). */
const MAX_FAILURE_CHARS = 1000;

/** The status of a request the remote refused for now (429, 503) as the client reports it, if that is the failure. */
function refusedFor(error: unknown): 429 | 503 | undefined {
  if (!SdkError.isInstance(error)) return undefined;
  const status = (error as { data?: { status?: unknown } }).data?.status;
  return status === 429 || status === 503 ? status : undefined;
}

/** Why a request to the remote failed, in words for the model; whether the connection should be dropped. */
export function describeFailure(link: Link, error: unknown, timeoutMs: number): { message: string; broken: boolean } {
  if (ProtocolError.isInstance(error)) {
    return { message: `${link.label} answered with error ${error.code}: ${error.message}`, broken: false };
  }
  if (SdkError.isInstance(error) && /timeout/i.test(String(error.code))) {
    return { message: `${link.label} did not answer within ${timeoutMs} ms`, broken: true };
  }
  // Refused for now, as the lane says it (lane.ts): the session is sound, and connecting again would only add load.
  const refused = refusedFor(error);
  if (refused !== undefined) {
    return { message: `${link.label} refused the request with ${refusedStatus(refused)}`, broken: false };
  }
  const message = error instanceof Error ? error.message : String(error);
  const cut = message.length > MAX_FAILURE_CHARS ? `${message.slice(0, MAX_FAILURE_CHARS)}…` : message;
  return { message: `${link.label} failed: ${cut}`, broken: true };
}

function isToolResult(value: unknown): value is CallToolResult {
  const content = (value as { content?: unknown } | null)?.content;
  return typeof value === "object" && value !== null && Array.isArray(content);
}

// The level to ask a 2026-07-28 remote to log at: the caller's own (a handshake-era caller's is its session's, which
// its ctx.log applies, so all is asked); none when the caller asked for no logs.
function logLevelFor(client: Client, ctx: RequestContext): string | undefined {
  const version = client.getNegotiatedProtocolVersion();
  if (version === undefined || version < "2026") return undefined;
  if (ctx.era === "handshake") return "debug";
  const asked = ctx.meta?.[MetaKey.logLevel];
  return isLogLevel(asked) ? asked : undefined;
}

/** Run `request` against the remote with the caller's signal and the bounds; failures become thrown Errors. */
export async function forward<T>(
  link: Link,
  ctx: RequestContext,
  via: Forwarding,
  request: (client: Client, options: ForwardOptions) => Promise<T>,
): Promise<T> {
  const timeout = via.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const max = via.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES;
  const client = await link.client();
  via.notes.tap(client);
  const call = via.notes.track(ctx);
  const level = logLevelFor(client, ctx);
  const meta = { progressToken: call.token, ...(level === undefined ? {} : { [MetaKey.logLevel]: level }) };
  // The caller's cancellation stops the call too (a listener, not AbortSignal.any: that costs more than the rest
  // of the gateway's own work on a call).
  const cancelled = () => call.cancel(ctx.signal.reason);
  if (ctx.signal.aborted) cancelled();
  else ctx.signal.addEventListener("abort", cancelled, { once: true });
  let result: T;
  try {
    result = await request(client, { signal: call.signal, timeout, meta });
  } catch (error) {
    if (ctx.signal.aborted) throw error;
    // Cut by the notes (its answer too large as it arrived): the connection is sound.
    if (call.cut) throw call.signal.reason as Error;
    if (via.notes.overflowed(client)) {
      link.drop(client);
      throw new Error(`${link.label} answered with more than ${max} bytes`, { cause: error });
    }
    const { message, broken } = describeFailure(link, error, timeout);
    if (broken) link.drop(client);
    throw new Error(message, { cause: error });
  } finally {
    ctx.signal.removeEventListener("abort", cancelled);
    call.close();
  }
  if (jsonBytes(result, max) > max) throw new Error(`${link.label} answered with more than ${max} bytes`);
  return result;
}

/** A tools/call forwarded: the remote's result as it came (content, structuredContent, isError), or why not. */
export async function callTool(
  link: Link,
  tool: Tool,
  args: unknown,
  ctx: RequestContext,
  via: Forwarding,
): Promise<CallToolResult> {
  // The tool as listed, so that the client mirrors its x-mcp-header arguments (SEP-2243) from the first call: it
  // reads them otherwise from its own cache of tools/list, which the page-by-page listing never fills, and finds
  // them only after a refusal and a whole list. Without its output schema: the client would compile one per call.
  const { outputSchema: _, ...toolDefinition } = tool;
  try {
    const result = await forward(link, ctx, via, async (client, { meta, ...options }) => {
      if (via.lane) {
        const straight = await via.lane.call(client, tool, args, meta, options.signal, options.timeout);
        if (straight !== AGAIN) return straight;
      }
      return client.callTool(
        { name: tool.name, arguments: (args ?? {}) as Record<string, unknown>, _meta: meta },
        { ...options, toolDefinition: toolDefinition as Tool },
      );
    });
    if (!isToolResult(result)) return errorResult(`${link.label} answered tools/call without a content array`);
    return result;
  } catch (error) {
    if (ctx.signal.aborted) throw error;
    // A 2026-07-28 remote's tool that runs only as a task, called without one: the caller gets the remote's own
    // refusal (-32021 naming the extension), as from a tool of the gateway's own, and may call it as a task.
    const cause = (error as Error).cause;
    if (ctx.era === "stateless" && ProtocolError.isInstance(cause) && cause.code === NEEDS_CAPABILITY) {
      throw new McpError(cause.code, cause.message, cause.data);
    }
    return errorResult((error as Error).message);
  }
}
