import { McpError, shown } from "../wire/errors.js";
import { ErrorCode, isPlainObject } from "../wire/json-rpc.js";

// Tasks as the core protocol defines them (2025-11-25: a request's `params.task`, `tasks/get|result|list|cancel`, the
// server's `tasks` capability), beside the tasks extension of 2026-07-28 (tasks.ts).

/** The `_meta` key that ties a message to its task. */
export const RELATED_TASK = "io.modelcontextprotocol/related-task";

/** The server's `tasks` capability when a tool may run as a task: list, cancel, and task-augmented `tools/call`. */
export const CORE_TASKS_CAPABILITY: Readonly<Record<string, unknown>> = Object.freeze({
  list: {},
  cancel: {},
  requests: { tools: { call: {} } },
});

/** The longest TTL a request may ask for, in milliseconds (what a timer can hold: about 24.8 days). */
export const MAX_REQUESTED_TTL_MS = 2 ** 31 - 1;

/** What a request asked of its task: undefined when it asked for none. */
export interface RequestedTask {
  /** How long to keep the task after it was created, in milliseconds; the server may keep it shorter. */
  readonly ttl?: number;
}

/**
 * A request's `params.task`, checked: undefined when absent; -32602 when it is not an object or its `ttl` is not a
 * whole number of milliseconds from 1 to `MAX_REQUESTED_TTL_MS`.
 */
export function requestedTask(params: Readonly<Record<string, unknown>> | undefined): RequestedTask | undefined {
  if (params === undefined || !Object.hasOwn(params, "task")) return undefined;
  const task = params.task;
  if (!isPlainObject(task)) {
    throw new McpError(
      ErrorCode.InvalidParams,
      `Invalid params: task must be an object ({ ttl? }), not ${shown(task)}`,
    );
  }
  if (task.ttl === undefined) return {};
  const ttl = task.ttl;
  if (typeof ttl !== "number" || !Number.isInteger(ttl) || ttl < 1 || ttl > MAX_REQUESTED_TTL_MS) {
    throw new McpError(
      ErrorCode.InvalidParams,
      `Invalid params: task.ttl must be a whole number of milliseconds from 1 to ${MAX_REQUESTED_TTL_MS}, not ${shown(ttl)}`,
    );
  }
  return { ttl };
}

/** -32601: a tool that cannot run as asked (a task for one that never runs as one, none for one that must). */
export function taskAugmentationRefused(tool: string, required: boolean): McpError {
  return new McpError(
    ErrorCode.MethodNotFound,
    required
      ? `Tool "${tool}" runs only as a task: call it with params.task (its execution.taskSupport is "required")`
      : `Tool "${tool}" does not run as a task: call it without params.task`,
  );
}
