import { serviceUnavailable } from "../connection/error-boundary.js";
import { UnfitAnswer } from "../context/elicit-answer.js";
import {
  isEngineUnavailable,
  isLeaseLost,
  type TaskChange,
  type TaskRecord,
  type TaskStore,
} from "../engine/engine.js";
import type { LogLevel } from "../protocol/log-levels.js";
import { isMcpError, type McpError, messageOf, toWireError } from "../wire/errors.js";
import { INTERNAL_ERROR, type JsonRpcErrorObject } from "../wire/json-rpc.js";

// How a task's handler ends: its outcome as the task's record keeps it, and kept once the engine can take it.

/** An outcome the store could not take is tried again after this long, doubling up to the most. */
const KEEP_RETRY_MS = 250;
const KEEP_RETRY_MAX_MS = 10_000;
/** Every write of a handler's side is fenced: made only while this process still holds the task's lease. */
export const RUNNING = { running: true } as const;

/** True for what a handler throws to fail its task as itself: a protocol error (an unfit answer is no such thing). */
export function isProtocolFailure(error: unknown): error is McpError {
  return isMcpError(error) && !(error instanceof UnfitAnswer);
}

/**
 * What a throw fails the task with: a protocol error as itself (its JSON-RPC error inlined); the engine's store out
 * of reach as core's one outage answer (`serviceUnavailable`); anything else as the generic internal error (the
 * caller logs it).
 */
export function failureOf(error: unknown): TaskChange {
  const wire: Readonly<JsonRpcErrorObject> = isProtocolFailure(error)
    ? toWireError(error)
    : isEngineUnavailable(error)
      ? serviceUnavailable(error.retryAfterSeconds)
      : INTERNAL_ERROR;
  return { kind: "fail", error: wire, statusMessage: wire.message };
}

/** Where keeping an outcome reports what went wrong. */
export type OutcomeReport = (level: LogLevel, message: string, error: unknown) => void;

/**
 * Keep `outcome` once the store can take it: a task whose outcome was lost would stay working while its process
 * lives (its lease held). Stops once `stopped()` (after a cancellation whatever the handler did is discarded) or
 * when another process took the task over. The task as kept, when it was.
 */
export async function keepOutcome(
  engine: TaskStore,
  id: string,
  outcome: TaskChange,
  stopped: () => boolean,
  report: OutcomeReport,
): Promise<TaskRecord | undefined> {
  for (let attempt = 0; !stopped(); attempt++) {
    try {
      return await engine.changeTask(id, outcome, RUNNING);
    } catch (error) {
      if (isLeaseLost(error)) {
        if (!stopped()) {
          report("warning", "lost its lease to another process (which ended the task): its outcome is dropped", error);
        }
        return undefined;
      }
      if (!isEngineUnavailable(error)) {
        report("error", `could not keep its outcome: ${messageOf(error)}`, error);
        return undefined;
      }
      if (attempt === 0) report("warning", `could not keep its outcome yet (trying again): ${messageOf(error)}`, error);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(KEEP_RETRY_MAX_MS, KEEP_RETRY_MS * 2 ** attempt));
        (timer as { unref?: () => void }).unref?.();
      });
    }
  }
  return undefined;
}
