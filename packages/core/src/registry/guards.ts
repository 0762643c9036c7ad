import type { RequestContext } from "../context/context.js";
import type { LogEntry } from "../context/logger.js";
import { RequestContextImpl } from "../context/request-context.js";

// Per-caller visibility: a guard decides whether a caller may see and use a tool, resource or prompt.

/**
 * Who may use a tool, resource or prompt. A caller it refuses does not see it in lists, and a call answers exactly
 * as for one that does not exist, so its existence does not leak. Runs for every list and call: keep it cheap. One
 * that throws refuses (and is logged as an error).
 * @example
 * ```ts source="examples/registry.ts#Guard"
 * const guard: Guard = (ctx) => ctx.auth?.scopes.includes("admin") ?? false;
 * server.tool({ name: "wipe", description: "Wipe all", guard, handler });
 * ```
 */
export type Guard = (ctx: RequestContext) => boolean | undefined;

/**
 * True when `guard` lets this caller see its item. A guard that throws refuses (the item answers as one that does
 * not exist, as for any refusal) and is reported: a crash must not tell a caller the item is there.
 */
export function allows(guard: Guard | undefined, ctx: RequestContext, report?: (entry: LogEntry) => void): boolean {
  if (guard === undefined) return true;
  try {
    return guard(ctx) === true;
  } catch (error) {
    report?.({ level: "error", message: `a guard threw, so it refused: ${String(error)}`, error, method: "(guard)" });
    if (ctx instanceof RequestContextImpl) ctx.crashed(error);
    return false;
  }
}
