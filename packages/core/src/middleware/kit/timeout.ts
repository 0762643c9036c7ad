import { errorResult } from "../../protocol/results.js";
import { McpError } from "../../wire/errors.js";
import { ErrorCode } from "../../wire/json-rpc.js";
import { isPromiseLike } from "../../wire/maybe.js";
import type { Middleware, Operation } from "../compose.js";

/** What a timed-out operation's handler sees as `ctx.signal.reason`. */
export class TimeoutError extends Error {
  override readonly name = "TimeoutError";
}

/**
 * Give every operation at most `ms` (or `ms(operation)`): then its `ctx.signal` aborts with a TimeoutError, and the
 * client is answered at once: a tool with an `isError` result, anything else with -32603.
 * @example
 * ```ts source="examples/middleware.ts#timeout"
 * server.use(timeout(30_000));
 * ```
 */
export function timeout(ms: number | ((operation: Operation) => number | undefined)): Middleware {
  return (operation, next) => {
    const limit = typeof ms === "number" ? ms : ms(operation);
    if (limit === undefined || limit <= 0) return next();
    const result = next();
    // A synchronous answer cannot be late.
    if (!isPromiseLike<Record<string, unknown>>(result)) return result;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<Record<string, unknown>>((resolve, reject) => {
      timer = setTimeout(() => {
        const message = `${operation.method}${operation.name ? ` ${operation.name}` : ""} timed out after ${limit} ms`;
        operation.abort(new TimeoutError(message));
        if (operation.kind === "call") resolve(errorResult(message) as unknown as Record<string, unknown>);
        else reject(new McpError(ErrorCode.InternalError, message));
      }, limit);
    });
    return Promise.race([result, late]).finally(() => clearTimeout(timer));
  };
}
