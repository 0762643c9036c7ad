import { isMcpError } from "../errors.js";
import { andThen, attempt } from "../maybe.js";
import type { Middleware } from "../middleware.js";
import { callerOf, describe, outcomeOf } from "./caller.js";

/** One logged operation. */
export interface RequestLogLine {
  /** `tools/call add (alice) ok 3.2 ms` */
  text: string;
  method: string;
  target: string | undefined;
  caller: string;
  outcome: "ok" | "isError" | "error";
  /** The JSON-RPC error code, for `error`. */
  code?: number;
  ms: number;
}

/**
 * Log every operation with its caller, outcome and duration.
 * @example
 * server.use(requestLog((line) => process.stderr.write(`${line.text}\n`)));
 */
export function requestLog(
  write: (line: RequestLogLine) => void,
  now: () => number = () => performance.now(),
): Middleware {
  return (operation, next) => {
    const started = now();
    const caller = callerOf(operation.ctx);
    const done = (outcome: RequestLogLine["outcome"], code?: number) => {
      const ms = Math.round((now() - started) * 10) / 10;
      const line: RequestLogLine = {
        text: `${describe(operation)} (${caller}) ${outcome}${code === undefined ? "" : ` ${code}`} ${ms} ms`,
        method: operation.method,
        target: operation.name ?? operation.uri,
        caller,
        outcome,
        ms,
      };
      if (code !== undefined) line.code = code;
      write(line);
    };
    return attempt(
      () =>
        andThen(next(), (result) => {
          done(outcomeOf(result));
          return result;
        }),
      (error) => {
        done("error", isMcpError(error) ? error.code : -32603);
        throw error;
      },
    );
  };
}
