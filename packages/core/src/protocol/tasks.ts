import { DefinitionError, McpError } from "../wire/errors.js";
import { ErrorCode, isPlainObject } from "../wire/json-rpc.js";
import type { RevisionFeatures } from "./revision.js";

// The tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663): defined in 2026-07-28 only, declared by the
// client per request in its `_meta` capabilities, decided per tool by the server alone.

/** The extension's identifier, as capabilities name it. */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

/** Whether a tool may run as a task: never, when the client can take one, or only as one. */
export type TaskSupport = "forbidden" | "optional" | "required";

/**
 * A tool's `task` option (server-side only; never listed): a support level, or one with its settings. `detach`:
 * "start" (default) makes the task before the handler runs; "manual" runs it as a request until `ctx.detach()`.
 */
export type TaskOption =
  | TaskSupport
  | {
      readonly support: TaskSupport;
      readonly detach?: "start" | "manual";
      /** How long the task is kept after it was created; null: no limit (default: the server's). */
      readonly ttlMs?: number | null;
      readonly pollIntervalMs?: number;
    };

/** A tool's task option as checked at registration (undefined: forbidden). */
export interface TaskPolicy {
  readonly support: "optional" | "required";
  readonly detach: "start" | "manual";
  readonly ttlMs: number | null | undefined;
  readonly pollIntervalMs: number | undefined;
}

/** The server's task defaults (`createServer({ tasks })`). */
export interface TaskDefaults {
  /**
   * How long a task is kept after it was created (default one hour); null: no limit. A 2025-11-25 task made without
   * a principal is its session's: once the session ends no one can reach it, and with null (no `ttl` asked) it is
   * kept for ever.
   */
  readonly ttlMs?: number | null;
  /** How often a client should poll `tasks/get` (default 1000 ms). */
  readonly pollIntervalMs?: number;
  /**
   * How many tasks one caller (its principal's subject, else its address: see `callerKey`) may have running on
   * this process at once (default 100); one more is refused with -32000 until one ends or is cancelled.
   */
  readonly maxPerCaller?: number;
  /**
   * How many tasks one caller may have stored (finished ones too, until their TTL passes), over every process of the
   * server (default a tenth of `maxStored`: 1000); one more is refused with -32000.
   */
  readonly maxStoredPerCaller?: number;
  /**
   * How many tasks all callers together may have stored, over every process of the server (default 10,000); one more
   * is refused with -32000. What bounds the store however many addresses the callers hold.
   */
  readonly maxStored?: number;
}

function positiveInteger(value: unknown): boolean {
  return typeof value === "number" && Number.isInteger(value) && value > 0;
}

/** A tool's option as a policy; a DefinitionError for one the server cannot serve with. */
export function taskPolicyOf(what: string, option: TaskOption | undefined): TaskPolicy | undefined {
  if (option === undefined || option === "forbidden") return undefined;
  if (option === "optional" || option === "required") {
    return { support: option, detach: "start", ttlMs: undefined, pollIntervalMs: undefined };
  }
  if (!isPlainObject(option)) {
    throw new DefinitionError(`${what} task must be "forbidden", "optional", "required" or { support, … }`);
  }
  const { support, detach = "start", ttlMs, pollIntervalMs } = option;
  if (support !== "forbidden" && support !== "optional" && support !== "required") {
    throw new DefinitionError(`${what} task.support must be "forbidden", "optional" or "required"`);
  }
  if (detach !== "start" && detach !== "manual") {
    throw new DefinitionError(`${what} task.detach must be "start" or "manual"`);
  }
  if (ttlMs !== undefined && ttlMs !== null && !positiveInteger(ttlMs)) {
    throw new DefinitionError(`${what} task.ttlMs must be a positive integer (milliseconds) or null`);
  }
  if (pollIntervalMs !== undefined && !positiveInteger(pollIntervalMs)) {
    throw new DefinitionError(`${what} task.pollIntervalMs must be a positive integer (milliseconds)`);
  }
  if (support === "forbidden") return undefined;
  return { support, detach, ttlMs, pollIntervalMs };
}

/** The server's defaults, checked; a DefinitionError for one it cannot serve with. */
export function taskDefaultsOf(defaults: TaskDefaults | undefined): {
  ttlMs: number | null;
  pollIntervalMs: number;
  maxPerCaller: number;
  maxStoredPerCaller: number;
  maxStored: number;
} {
  const ttlMs = defaults?.ttlMs === undefined ? 3_600_000 : defaults.ttlMs;
  const pollIntervalMs = defaults?.pollIntervalMs ?? 1000;
  const maxPerCaller = defaults?.maxPerCaller ?? 100;
  const maxStored = defaults?.maxStored ?? 10_000;
  if (!positiveInteger(maxStored)) throw new DefinitionError("tasks.maxStored must be a positive integer");
  // A tenth: ten callers (a task is kept for its TTL, an hour by default, whatever its caller does) to fill the store.
  const maxStoredPerCaller = defaults?.maxStoredPerCaller ?? Math.max(1, Math.ceil(maxStored / 10));
  if (ttlMs !== null && !positiveInteger(ttlMs)) {
    throw new DefinitionError("tasks.ttlMs must be a positive integer (milliseconds) or null");
  }
  if (!positiveInteger(pollIntervalMs)) {
    throw new DefinitionError("tasks.pollIntervalMs must be a positive integer (milliseconds)");
  }
  if (!positiveInteger(maxPerCaller)) throw new DefinitionError("tasks.maxPerCaller must be a positive integer");
  if (!positiveInteger(maxStoredPerCaller)) {
    throw new DefinitionError("tasks.maxStoredPerCaller must be a positive integer");
  }
  return { ttlMs, pollIntervalMs, maxPerCaller, maxStoredPerCaller, maxStored };
}

/** Whether this request declared the extension (2026-07-28 only: it is not defined in the handshake era). */
export function declaresTasks(
  revision: RevisionFeatures,
  clientCapabilities: Readonly<Record<string, unknown>>,
): boolean {
  if (revision.tasks !== "extension") return false;
  const extensions = clientCapabilities.extensions;
  return isPlainObject(extensions) && isPlainObject(extensions[TASKS_EXTENSION]);
}

/** -32021: what was asked needs the tasks extension, which this request did not declare. */
export function tasksRequired(what: string): McpError {
  return new McpError(
    ErrorCode.MissingRequiredClientCapability,
    `${what} needs the client's ${TASKS_EXTENSION} extension, which this request did not declare`,
    { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
  );
}
