import type { Middleware } from "../compose.js";
import { callerLabel, describe } from "./caller.js";
import { type Outcome, observe } from "./outcome.js";

/** One logged operation. */
export interface RequestLogLine {
  /** `tools/call add (alice) ok 3.2 ms` */
  text: string;
  method: string;
  target: string | undefined;
  caller: string;
  outcome: Outcome["outcome"];
  /** The JSON-RPC error code, for `error`. */
  code?: number;
  ms: number;
}

/**
 * Log every operation with its caller, outcome and duration.
 * @example
 * ```ts source="examples/middleware.ts#requestLog"
 * server.use(requestLog((line) => process.stderr.write(`${line.text}\n`)));
 * ```
 */
export function requestLog(
  write: (line: RequestLogLine) => void,
  now: () => number = () => performance.now(),
): Middleware {
  return (operation, next) => {
    const started = now();
    const caller = callerLabel(operation.ctx);
    return observe(next, (ended) => {
      const ms = Math.round((now() - started) * 10) / 10;
      const code = ended.outcome === "error" ? ended.code : undefined;
      const line: RequestLogLine = {
        text: `${describe(operation)} (${caller}) ${ended.outcome}${code === undefined ? "" : ` ${code}`} ${ms} ms`,
        method: operation.method,
        target: operation.name ?? operation.uri,
        caller,
        outcome: ended.outcome,
        ms,
      };
      if (code !== undefined) line.code = code;
      write(line);
    });
  };
}
