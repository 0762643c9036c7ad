import type { RequestContextImpl } from "../context/request-context.js";
import type { TaskRecord } from "../engine/engine.js";
import { RELATED_TASK } from "../protocol/core-tasks.js";
import { McpError } from "../wire/errors.js";
import { ErrorCode } from "../wire/json-rpc.js";

// A task on the wire as the core protocol has it (2025-11-25): the Task of tasks/get, tasks/cancel, tasks/list and
// notifications/tasks/status, the nested CreateTaskResult, the result of tasks/result, and whose a task is.

/** A task's status as 2025-11-25 tells it: a tool result with `isError` is a failed task there. */
function statusOf(task: TaskRecord): string {
  return task.status === "completed" && task.result?.isError === true ? "failed" : task.status;
}

/** What a tool's error result says, as a failed task's status message (the text: diagnostic information). */
function toolError(task: TaskRecord): string {
  const content = task.result?.content;
  const first = Array.isArray(content) ? (content[0] as { type?: unknown; text?: unknown } | undefined) : undefined;
  return first?.type === "text" && typeof first.text === "string" ? first.text : "The tool returned an error result";
}

/** The Task of 2025-11-25: `ttl` (null: unlimited) and `pollInterval`, in milliseconds. */
export function coreTask(task: TaskRecord): Record<string, unknown> {
  const status = statusOf(task);
  const out: Record<string, unknown> = { taskId: task.id, status };
  if (status === "failed" && task.status === "completed") out.statusMessage = toolError(task);
  else if (task.statusMessage !== undefined) out.statusMessage = task.statusMessage;
  out.createdAt = new Date(task.createdAt).toISOString();
  out.lastUpdatedAt = new Date(task.lastUpdatedAt).toISOString();
  out.ttl = task.ttlMs;
  out.pollInterval = task.pollIntervalMs;
  return out;
}

/** The `tools/call` reply that announces a task: `{ task }`. */
export function coreCreateTaskResult(task: TaskRecord): Record<string, unknown> {
  return { task: coreTask(task) };
}

/** The meta that ties a message to its task. */
export function relatedMeta(id: string): Record<string, unknown> {
  return { [RELATED_TASK]: { taskId: id } };
}

/**
 * What `tasks/result` answers for a terminal task: exactly what the request would have (its result, tied to the
 * task; its JSON-RPC error thrown as itself); a cancelled task has neither, and says so.
 */
export function coreTaskOutcome(task: TaskRecord): Record<string, unknown> {
  if (task.status === "completed" && task.result !== undefined) {
    const meta = task.result._meta;
    const own = typeof meta === "object" && meta !== null && !Array.isArray(meta) ? meta : {};
    return { ...task.result, _meta: { ...own, ...relatedMeta(task.id) } };
  }
  if (task.status === "failed" && task.error !== undefined) {
    const { code, message, data } = task.error;
    throw new McpError(code, message, data);
  }
  throw new McpError(ErrorCode.InvalidParams, `Task ${task.id} was ${task.status}: it has no result`);
}

/** -32602 for a task the caller may not touch: the same for another's, the other generation's and a missing one. */
export function coreTaskNotFound(): McpError {
  return new McpError(ErrorCode.InvalidParams, "Failed to retrieve task: Task not found");
}

/** -32602 for cancelling a finished task. */
export function alreadyTerminal(task: TaskRecord): McpError {
  return new McpError(ErrorCode.InvalidParams, `Cannot cancel task: already in terminal status '${statusOf(task)}'`);
}

/** -32602 for a taskId that is not a string. */
export function coreTaskId(params: Record<string, unknown> | undefined): string {
  const id = params?.taskId;
  if (typeof id !== "string") throw new McpError(ErrorCode.InvalidParams, "Invalid params: taskId must be a string");
  return id;
}

/**
 * The key a handshake-era caller's tasks are kept under: its principal's subject (any of its sessions sees them),
 * else the session that made them.
 */
export function coreOwnerKey(ctx: RequestContextImpl): string {
  const subject = ctx.auth?.subject;
  return subject !== undefined ? `p:${encodeURIComponent(subject)}` : `s:${encodeURIComponent(ctx.session ?? "")}`;
}

/** The task when it is a handshake-era task of this caller (its principal, else its session); else undefined. */
export function ownCoreTask(task: TaskRecord | undefined, ctx: RequestContextImpl): TaskRecord | undefined {
  if (task === undefined || task.era !== "handshake") return undefined;
  const subject = ctx.auth?.subject;
  if (task.owner !== subject) return undefined;
  return subject !== undefined || (task.session !== undefined && task.session === ctx.session) ? task : undefined;
}
