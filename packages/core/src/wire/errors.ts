import { INTERNAL_ERROR, type JsonRpcErrorObject } from "./json-rpc.js";

/**
 * An error that crosses the wire as a JSON-RPC error object.
 * @example
 * ```ts source="examples/wire.ts#McpError"
 * throw new McpError(ErrorCode.InvalidParams, "Unknown tool: nope");
 * ```
 */
export class McpError extends Error {
  override readonly name = "McpError";
  readonly code: number;
  readonly data: unknown;

  constructor(code: number, message: string, data?: unknown, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.data = data;
  }

  /** The wire form: code, message and data, never a stack. */
  toJSON(): JsonRpcErrorObject {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}

/**
 * A mistake in how a server is defined (bad name, duplicate, missing description).
 * Thrown at definition time; never sent on the wire.
 * @example
 * ```ts source="examples/wire.ts#DefinitionError"
 * try {
 *   server.tool({ name: "", description: "Nameless", handler: () => 1 });
 * } catch (error) {
 *   if (error instanceof DefinitionError) return error.message; // it says what to change
 *   throw error;
 * }
 * ```
 */
export class DefinitionError extends Error {
  override readonly name = "DefinitionError";
}

/**
 * The client answered one of the server's own requests (elicitation, sampling, roots) with an error. A handler that
 * lets it through fails like any other throw: an `isError` result for a tool, never the client's error as the call's.
 */
export class ClientError extends Error {
  override readonly name = "ClientError";
  constructor(
    /** The server's request that failed. */
    readonly method: string,
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(`The client answered ${method} with error ${code}: ${message}`);
  }
}

/** True when `value` is an McpError (also across copies of this package). */
export function isMcpError(value: unknown): value is McpError {
  return (
    value instanceof McpError ||
    (value instanceof Error && value.name === "McpError" && typeof (value as McpError).code === "number")
  );
}

/** The message of anything thrown, without its stack. */
export function messageOf(thrown: unknown): string {
  if (thrown instanceof Error) return thrown.message || thrown.name;
  if (typeof thrown === "string") return thrown;
  try {
    return JSON.stringify(thrown) ?? String(thrown);
  } catch {
    return String(thrown);
  }
}

/**
 * A value as an error message shows it: a primitive as JSON (cut short; a number as written, NaN and Infinity too),
 * an array or object by its kind.
 */
export function shown(value: unknown): string {
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object" && value !== null) return "an object";
  const text =
    typeof value === "number" || typeof value === "bigint" ? String(value) : (JSON.stringify(value) ?? String(value));
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}

/** One boundary: what an unexpected throw becomes on the wire (a generic -32603; details stay on the server). */
export function toWireError(thrown: unknown): JsonRpcErrorObject {
  if (!isMcpError(thrown)) return { ...INTERNAL_ERROR };
  // Field by field: an McpError from another library may have no toJSON, or extra fields.
  const { code, message, data } = thrown as { code: number; message: unknown; data?: unknown };
  const wire: JsonRpcErrorObject = { code, message: typeof message === "string" ? message : String(message) };
  if (data !== undefined) wire.data = data;
  return wire;
}
