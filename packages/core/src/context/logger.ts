import { type LogLevel, levelPasses } from "../protocol/log-levels.js";
import type { RequestId } from "../wire/json-rpc.js";

/** Where something the server itself reports happened. */
export interface ErrorReport {
  method: string;
  requestId?: RequestId;
  tool?: string;
}

/** One entry of the server's own log (never the wire): what happened, how bad, and where. */
export interface LogEntry extends Partial<ErrorReport> {
  level: LogLevel;
  message: string;
  error?: unknown;
}

/**
 * The server's own log. Core writes nothing anywhere; transports install one that writes to stderr. Expected
 * failures (a tool that threw, which the model reads as an `isError` result) are `info`; a `-32603` is `error`.
 * @example
 * ```ts source="examples/context.ts#Logger"
 * createServer({ name: "demo", version: "1.0.0", logger: (entry) => myLog[entry.level](entry.message) });
 * ```
 */
export type Logger = (entry: LogEntry) => void;

/**
 * A logger that writes one line of text per entry at `threshold` and above, with the stack of an error at warning
 * and above: what a transport installs on stderr when the server has no logger of its own.
 * @example
 * ```ts source="examples/context.ts#textLogger"
 * server.setLogger(textLogger((line) => process.stderr.write(line)));
 * ```
 */
export function textLogger(write: (line: string) => void, threshold: LogLevel = "warning"): Logger {
  return (entry) => {
    if (!levelPasses(entry.level, threshold)) return;
    const { error } = entry;
    const stack =
      error instanceof Error && entry.level !== "info" && entry.level !== "debug" && error.stack
        ? `\n${error.stack}`
        : "";
    write(`[toolsmith] ${entry.message}${stack}\n`);
  };
}
