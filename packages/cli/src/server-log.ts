import type { Colors } from "./colors.js";
import { printable } from "./printable.js";
import type { LogParams } from "./raw-requests.js";

const SEVERE = new Set(["error", "critical", "alert", "emergency"]);

/** A log message's data as text: a string as it is; `{ message, …rest }` as the message then the rest as JSON. */
function dataText(data: unknown): string {
  if (typeof data === "string") return data;
  if (data !== null && typeof data === "object" && !Array.isArray(data)) {
    const { message, ...rest } = data as Record<string, unknown>;
    if (typeof message === "string") {
      const more =
        Object.keys(rest).length === 0
          ? ""
          : ` ${json(rest.data !== undefined && Object.keys(rest).length === 1 ? rest.data : rest)}`;
      return `${message}${more}`;
    }
  }
  return json(data);
}

function json(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * A server's `notifications/message` as one line for stderr: `[level] logger: data`, what the server sent made
 * printable (its escape sequences and newlines shown escaped, on a terminal or not: a file is read on one later).
 */
export function formatLog(params: LogParams, c: Colors): string {
  const level = printable(String(params.level));
  const paint = SEVERE.has(level) ? c.red : level === "warning" ? c.yellow : level === "debug" ? c.dim : c.cyan;
  const logger = typeof params.logger === "string" && params.logger !== "" ? ` ${printable(params.logger)}:` : "";
  return `${paint(`[${level}]`)}${logger} ${printable(dataText(params.data))}`;
}
