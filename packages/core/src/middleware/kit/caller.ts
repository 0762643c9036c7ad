import type { RequestContext } from "../../context/context.js";

/**
 * Who is calling, for a person to read: the authenticated subject, else the client's own name (which the client
 * chooses: never a key for limits), else "anonymous".
 */
export function callerLabel(ctx: RequestContext): string {
  if (ctx.auth !== undefined) return ctx.auth.subject;
  return ctx.clientInfo?.name ? `${ctx.clientInfo.name} (unauthenticated)` : "anonymous";
}

/**
 * Who is calling, as a key a client cannot choose: the request's caller key (`ctx.caller`: its subject, else its
 * network address), else one shared anonymous key (stdio: one client per process).
 */
export function callerKeyOf(ctx: RequestContext): string {
  return ctx.caller ?? "anonymous";
}

/** What an operation is about, for a person to read: `tools/call add`, `resources/read notes://1`. */
export function describe(operation: { method: string; name?: string; uri?: string }): string {
  const target = operation.name ?? operation.uri;
  return target === undefined ? operation.method : `${operation.method} ${target}`;
}
