import { CliError, EXIT } from "./exit-codes.js";
import { RawError, TimedOut } from "./raw-requests.js";
import {
  interruptible,
  pause,
  persist,
  pollInterval,
  send,
  type TaskCallOptions,
  type TaskCallOutcome,
} from "./task-call.js";

// 2025-11-25's own tasks (the handshake era): tools/call with params.task, then tasks/get until the task ends and
// tasks/result for what it returned. Its questions come as requests of the server's (elicitation/create, tied to
// the task), which the connection's handler answers: on the connection that made the task as they are asked, and
// on tasks/result for a task followed from another connection.

const TERMINAL = new Set(["completed", "failed", "cancelled"]);

function describe(tool: string, task: Record<string, unknown>): string {
  const message = typeof task.statusMessage === "string" ? ` ${task.statusMessage}` : "";
  return `${tool}: ${String(task.status)}${message}`;
}

/** `tools/call` as a 2025-11-25 task, followed to its end unless `noWait`. */
export async function callWithCoreTask(
  options: TaskCallOptions,
): Promise<TaskCallOutcome | { kind: "created"; task: Record<string, unknown> }> {
  const { raw, tool, args, interrupt } = options;
  const created = await interruptible(
    send(raw, "tools/call", { name: tool, arguments: args, task: {} }, undefined, undefined, true),
    interrupt,
  );
  const task = created.task as Record<string, unknown> | undefined;
  // A server may run it as a request after all: its result is the answer.
  if (task === undefined) return { kind: "complete", result: created };
  if (options.noWait) return { kind: "created", task };
  return followCoreTask({ ...options, handshake: true }, task, true);
}

/**
 * Follow a 2025-11-25 task from `first` (its Task) until it ends; `madeHere`: this connection made it, and hears its
 * questions as they are asked (else tasks/result carries them).
 */
export async function followCoreTask(
  options: TaskCallOptions,
  first: Record<string, unknown>,
  madeHere: boolean,
): Promise<TaskCallOutcome> {
  const { raw, tool, progress, interrupt } = options;
  const taskId = String(first.taskId);
  const ttl = first.ttl;
  const deadline = typeof ttl === "number" && Number.isFinite(ttl) ? Date.now() + ttl : Number.POSITIVE_INFINITY;
  const core = { ...options, handshake: true };
  let task = first;
  for (;;) {
    progress.show(describe(tool, task));
    if (interrupt.aborted) {
      progress.show(`cancelling task ${taskId} (Ctrl-C again to leave it running)…`);
      try {
        await send(raw, "tasks/cancel", { taskId }, undefined, options.leave, true);
      } catch (error) {
        throw new CliError(`interrupted; task ${taskId} not cancelled: ${(error as Error).message}`, EXIT.interrupted);
      }
      return { kind: "cancelled", taskId, byUs: true };
    }
    if (task.status === "cancelled") return { kind: "cancelled", taskId, byUs: false };
    if (TERMINAL.has(String(task.status)) || (task.status === "input_required" && !madeHere)) {
      const outcome = await result(core, taskId);
      if (outcome !== undefined) return outcome;
    } else await pause(pollInterval(task.pollInterval), interrupt);
    if (!interrupt.aborted) task = (await persist(core, { taskId, deadline }, "tasks/get", { taskId })) ?? task;
  }
}

// tasks/result: what the call returned, or the error it failed with; undefined when it did not come in time (the
// task is polled again) or Ctrl-C came first.
async function result(options: TaskCallOptions, taskId: string): Promise<TaskCallOutcome | undefined> {
  try {
    const answer = await options.raw.request("tasks/result", { taskId }, undefined, options.interrupt);
    return { kind: "complete", result: answer };
  } catch (error) {
    if (options.interrupt.aborted || error instanceof TimedOut) return undefined;
    if (error instanceof RawError) {
      return {
        kind: "failed",
        taskId,
        error: { code: error.code, message: error.message, ...(error.data === undefined ? {} : { data: error.data }) },
      };
    }
    throw error;
  }
}
