/** True for an object that is not an array and not null. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A JSON-RPC error response as text. */
export function errorBody(id: unknown, code: number, message: string, data?: unknown): string {
  const error = data === undefined ? { code, message } : { code, message, data };
  return JSON.stringify({ jsonrpc: "2.0", id: typeof id === "string" || typeof id === "number" ? id : null, error });
}
