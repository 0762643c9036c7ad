/** MCP's log levels, least severe first (RFC 5424 names, as `notifications/message` uses them). */
export const LOG_LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"] as const;

/** One of MCP's log levels. */
export type LogLevel = (typeof LOG_LEVELS)[number];

const RANK: Readonly<Record<string, number>> = Object.fromEntries(LOG_LEVELS.map((level, index) => [level, index]));

/** Whether a value names one of MCP's log levels. */
export function isLogLevel(value: unknown): value is LogLevel {
  return typeof value === "string" && Object.hasOwn(RANK, value);
}

/** True when a message at `level` passes a `threshold`. */
export function levelPasses(level: LogLevel, threshold: LogLevel): boolean {
  return (RANK[level] as number) >= (RANK[threshold] as number);
}
