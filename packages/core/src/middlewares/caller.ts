import type { RequestContext } from "../context.js";

/** Who is calling, as one key: the authenticated subject, else the client's name, else "anonymous". */
export function callerOf(ctx: RequestContext): string {
  return ctx.auth?.subject ?? ctx.clientInfo?.name ?? "anonymous";
}

/** What an operation is about, for a person to read: `tools/call add`, `resources/read notes://1`. */
export function describe(operation: { method: string; name?: string; uri?: string }): string {
  const target = operation.name ?? operation.uri;
  return target === undefined ? operation.method : `${operation.method} ${target}`;
}

/** How a result went: a tool's own failure is `isError`, apart from a JSON-RPC error. */
export function outcomeOf(result: Record<string, unknown>): "ok" | "isError" {
  return result.isError === true ? "isError" : "ok";
}
