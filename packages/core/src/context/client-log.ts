import { LOG_LEVELS, type LogLevel } from "../protocol/log-levels.js";
import { loggable } from "./log-data.js";

/**
 * What a log call may attach besides its message: anything, shown as a console prints it in JSON (an Error, also
 * one nested in it, as `{ name, message }`; a circular reference as "[Circular]"; a BigInt as its digits).
 */
export type LogData = object | number | boolean | null;

/**
 * One level of the client log: a message and optional data, or, as pino writes it, data and an optional message.
 * The notification's `data` is the message alone, the data alone, or `{ message, data }` when there are both.
 */
export interface LogMethod {
  (message: string, data?: LogData): void;
  (data: LogData, message?: string): void;
}

/**
 * Log to the client (`notifications/message`), one method per level. The notification's `logger` is the tool's,
 * resource's or prompt's name; `named(name)` gives the same log under another one.
 * @example
 * ```ts source="examples/context.ts#ClientLog"
 * ctx.log.info("import started", { rows: 120 }); // data: { message: "import started", data: { rows: 120 } }
 * ctx.log.named("search").warning("airline down"); // logger: "search", data: "airline down"
 * ```
 */
export type ClientLog = { readonly [L in LogLevel]: LogMethod } & {
  /** The same log with `logger` set to `name`. */
  named(name: string): ClientLog;
};

/** Where a client log's calls go: the level, the call's two arguments as given, and the logger name. */
export type LogSend = (level: LogLevel, first: unknown, second: unknown, logger: string | undefined) => void;

/**
 * A client log whose calls go to `send` under `name`, or, without one, under `defaultName()` read when a message is
 * sent (the router names a request's log after what serves it only once it knows).
 */
export function clientLog(send: LogSend, name: string | undefined, defaultName: () => string | undefined): ClientLog {
  const log = { named: (other: string) => clientLog(send, String(other), defaultName) } as Record<string, unknown>;
  for (const level of LOG_LEVELS) {
    log[level] = (first: unknown, second?: unknown) => send(level, first, second, name ?? defaultName());
  }
  return log as ClientLog;
}

/** The notification's data: the message, the data, or both; the data as JSON can carry it (see loggable). */
export function logData(first: unknown, second: unknown): unknown {
  const [message, data] = typeof first === "string" ? [first, second] : [second, first];
  const value = loggable(data);
  if (typeof message !== "string") return value ?? null;
  return value === undefined ? message : { message, data: value };
}
