import type { RequestContextImpl } from "../context/request-context.js";
import type { TaskRecord } from "../engine/engine.js";
import { declaresTasks, tasksRequired } from "../protocol/tasks.js";
import { McpError, shown } from "../wire/errors.js";
import { ErrorCode, isPlainObject } from "../wire/json-rpc.js";

// A task on the wire (the tasks extension): the flat Task of a CreateTaskResult, the DetailedTask of tasks/get and
// notifications/tasks, and the checks every tasks/* request passes before its task is touched.

/** The Task fields every shape has. */
function taskFields(task: TaskRecord): Record<string, unknown> {
  const out: Record<string, unknown> = { taskId: task.id, status: task.status };
  if (task.statusMessage !== undefined) out.statusMessage = task.statusMessage;
  out.createdAt = new Date(task.createdAt).toISOString();
  out.lastUpdatedAt = new Date(task.lastUpdatedAt).toISOString();
  out.ttlMs = task.ttlMs;
  out.pollIntervalMs = task.pollIntervalMs;
  return out;
}

/** The `tools/call` reply that announces a task: flat, nothing of its outcome. */
export function createTaskResult(task: TaskRecord): Record<string, unknown> {
  return { resultType: "task", ...taskFields(task) };
}

/** The task as `tasks/get` and `notifications/tasks` show it: what its status has inlined. */
export function detailedTask(task: TaskRecord): Record<string, unknown> {
  const out = taskFields(task);
  if (task.status === "input_required") out.inputRequests = task.inputRequests;
  // The inlined result is a 2026-07-28 result as any other: its resultType is "complete" (the official client checks).
  else if (task.status === "completed" && task.result !== undefined)
    out.result = { resultType: "complete", ...task.result };
  else if (task.status === "failed" && task.error !== undefined) out.error = task.error;
  return out;
}

/** What a task unknown to this caller is answered: the same for another caller's and for one that never was. */
export function taskNotFound(): McpError {
  return new McpError(ErrorCode.InvalidParams, "Failed to retrieve task: Task not found");
}

/** tasks/*: -32021 for a request without the extension, then -32602 for a taskId that is not a string. */
export function checkedTaskId(
  method: string,
  params: Record<string, unknown> | undefined,
  ctx: RequestContextImpl,
): string {
  if (!declaresTasks(ctx.revision, ctx.clientCapabilities)) throw tasksRequired(method);
  const id = params?.taskId;
  if (typeof id !== "string") throw new McpError(ErrorCode.InvalidParams, "Invalid params: taskId must be a string");
  return id;
}

/** The task when it exists, is the extension's (not a handshake-era one) and this caller's (its principal's subject). */
export function ownTask(task: TaskRecord | undefined, ctx: RequestContextImpl): TaskRecord | undefined {
  return task !== undefined && task.era === undefined && task.owner === ctx.auth?.subject ? task : undefined;
}

/**
 * The answers to the task's outstanding questions, each checked before any is taken (a refused update leaves the
 * task as it was); undefined when none is outstanding. Answers to other keys are ignored, whatever they hold.
 */
export function outstandingAnswers(
  task: TaskRecord,
  responses: Record<string, unknown>,
): Record<string, unknown> | undefined {
  const taken = Object.keys(responses).filter((key) => Object.hasOwn(task.inputRequests, key));
  if (taken.length === 0) return undefined;
  for (const key of taken) {
    if (!isPlainObject(responses[key])) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `Invalid params: inputResponses[${shown(key)}] must be an object (the client's result for that input request), not ${shown(responses[key])}`,
      );
    }
  }
  // fromEntries defines own properties: a key such as "__proto__" stays a key.
  return Object.fromEntries(taken.map((key) => [key, responses[key]]));
}
