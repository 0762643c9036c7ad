/**
 * Every JSON-RPC error code Toolsmith sends, in one table: core, middlewares and transports name them from here.
 * -32000..-32019 are implementation-defined; -32020..-32099 are reserved for MCP.
 */
export const ErrorCode = {
  /** The message is not valid JSON. */
  ParseError: -32700,
  /** Valid JSON but not a JSON-RPC request (or over a size limit, or a batch where batches are not accepted). */
  InvalidRequest: -32600,
  /** No such method, or a capability the server does not advertise. */
  MethodNotFound: -32601,
  /** Bad params: unknown tool or prompt, bad arguments or cursor; in 2026-07-28 also bad `_meta` and no resource. */
  InvalidParams: -32602,
  /** Anything unexpected: details stay on the server. */
  InternalError: -32603,
  /** Implementation-defined: the server refuses on its own account (busy, too many open, forbidden, no session). */
  ServerError: -32000,
  /** Implementation-defined: an HTTP session id that is unknown, ended or another caller's (as the official SDK). */
  SessionNotFound: -32001,
  /** Handshake era: a resource that does not exist (reserved, but still understood, in 2026-07-28). */
  ResourceNotFound: -32002,
  /** Implementation-defined: the `rateLimit` middleware refused the operation; `data.retryAfterMs` says when to retry. */
  RateLimited: -32010,
  /**
   * Implementation-defined: the caller's token lacks a scope the operation needs; `data.scopes` names every scope it
   * needs (HTTP: 403 with an RFC 6750 `insufficient_scope` challenge).
   */
  InsufficientScope: -32011,
  /** 2026-07-28: an HTTP routing header disagrees with the body. */
  HeaderMismatch: -32020,
  /** 2026-07-28: the request needs a client capability it did not declare. */
  MissingRequiredClientCapability: -32021,
  /** 2026-07-28: `_meta` names a protocol version this server does not speak. */
  UnsupportedProtocolVersion: -32022,
} as const;

export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/** A request id: JSON-RPC allows strings and numbers; MCP never allows null. */
export type RequestId = string | number;

export interface JsonRpcRequest {
  jsonrpc: "2.0";
  id: RequestId;
  method: string;
  params?: Record<string, unknown>;
}

export interface JsonRpcNotification {
  jsonrpc: "2.0";
  method: string;
  params?: Record<string, unknown>;
}

export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

export interface JsonRpcSuccess {
  jsonrpc: "2.0";
  id: RequestId;
  result: Record<string, unknown>;
}

export interface JsonRpcError {
  jsonrpc: "2.0";
  id: RequestId | null;
  error: JsonRpcErrorObject;
}

export type JsonRpcResponse = JsonRpcSuccess | JsonRpcError;

/** Anything one JSON-RPC message may be. */
export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse;

export function success(id: RequestId, result: Record<string, unknown>): JsonRpcSuccess {
  return { jsonrpc: "2.0", id, result };
}

/** The generic answer to anything thrown that is not an `McpError`: -32603 "Internal error", never its message. */
export const INTERNAL_ERROR: Readonly<JsonRpcErrorObject> = Object.freeze({
  code: ErrorCode.InternalError,
  message: "Internal error",
});

const INTERNAL_ERROR_TEXT = JSON.stringify(INTERNAL_ERROR);

/**
 * The one writer of JSON-RPC error responses, for core and transports alike: `id` is the id's JSON text, from
 * `idText` (exact past 2^53, the last "id" key as JSON.parse reads it). Error data that cannot be serialized (a
 * BigInt, a cycle) becomes a -32603 for the same id; `onError` hears why.
 * @example
 * ```ts source="examples/wire.ts#errorLine"
 * errorLine(idText(message.id, line), { code: ErrorCode.InvalidRequest, message: "Invalid request: too large" });
 * ```
 */
export function errorLine(id: string, error: JsonRpcErrorObject, onError?: (thrown: unknown) => void): string {
  let text: string;
  try {
    text = JSON.stringify(error);
  } catch (thrown) {
    onError?.(thrown);
    text = INTERNAL_ERROR_TEXT;
  }
  return `{"jsonrpc":"2.0","id":${id},"error":${text}}`;
}

/** True for a string or a finite number: the ids this server echoes. */
export function isRequestId(value: unknown): value is RequestId {
  return typeof value === "string" || (typeof value === "number" && Number.isFinite(value));
}

/** True for an object that is not an array and not null. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
