/** JSON-RPC 2.0 and MCP error codes, as sent on the wire. */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** Handshake era: a resource that does not exist (reserved, but still understood, in 2026-07-28). */
  ResourceNotFound: -32002,
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

const INTERNAL_ERROR = JSON.stringify({ code: ErrorCode.InternalError, message: "Internal error" });

/**
 * The one writer of JSON-RPC error responses, for core and transports alike: `id` is the id's JSON text, from
 * `idText` (exact past 2^53, the last "id" key as JSON.parse reads it). Error data that cannot be serialized (a
 * BigInt, a cycle) becomes a -32603 for the same id; `onError` hears why.
 * @example
 * errorLine(idText(message.id, line), { code: ErrorCode.InvalidRequest, message: "Invalid request: too large" });
 */
export function errorLine(id: string, error: JsonRpcErrorObject, onError?: (thrown: unknown) => void): string {
  let text: string;
  try {
    text = JSON.stringify(error);
  } catch (thrown) {
    onError?.(thrown);
    text = INTERNAL_ERROR;
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
