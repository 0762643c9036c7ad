import { ErrorCode } from "@toolsmith/core";
import type { Answerer, InputRequest } from "./answers.js";
import { MODERN_VERSION } from "./connect.js";
import { CliError, EXIT, type ExitCode } from "./exit-codes.js";
import { describeProgress, type ProgressLine } from "./progress-line.js";
import { ConnectionClosed, type RawChannel, RawError, TimedOut } from "./raw-requests.js";
import { Unavailable } from "./transient.js";
import { CLI_VERSION } from "./version.js";

/** The tasks extension (SEP-2663). */
export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

/** How a call through the tasks extension ended. */
export type TaskCallOutcome =
  | { kind: "complete"; result: Record<string, unknown> }
  | { kind: "failed"; taskId: string; error: { code: number; message: string; data?: unknown } }
  | { kind: "cancelled"; taskId: string; byUs: boolean };

export interface TaskCallOptions {
  raw: RawChannel;
  tool: string;
  args: Record<string, unknown>;
  progress: ProgressLine;
  answer: Answerer;
  /** Aborted on Ctrl-C: a running task is cancelled (tasks/cancel). */
  interrupt: AbortSignal;
  /** Aborted on a second Ctrl-C: stop waiting for tasks/cancel's answer and leave the task. */
  leave?: AbortSignal;
  /** Stop at the CreateTaskResult and return it. */
  noWait?: boolean;
  /** The server's URL over HTTP, where the task can be asked for later (a stdio server's tasks end with it). */
  url?: string;
  /** The handshake era (2025-11-25's own tasks): requests carry no 2026-07-28 envelope. */
  handshake?: boolean;
}

/** What the server is told on every request: the 2026 envelope, declaring the tasks extension and form questions. */
function envelope(): Record<string, unknown> {
  return {
    "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
    "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {} }, extensions: { [TASKS_EXTENSION]: {} } },
    "io.modelcontextprotocol/clientInfo": { name: "toolsmith", version: CLI_VERSION },
  };
}

/** How long to wait before asking again after the `failures`-th failure in a row: what `Retry-After` said (kept
 * between 250 ms and 30 s), else 0.5 s doubling up to 10 s. */
export function retryDelay(failures: number, retryAfterMs: number | undefined): number {
  if (retryAfterMs !== undefined) return Math.min(30_000, Math.max(250, retryAfterMs));
  return Math.min(10_000, 500 * 2 ** Math.max(0, failures - 1));
}

/** The poll interval the server suggests, kept between 250 ms and 5 s. */
export function pollInterval(suggested: unknown): number {
  const ms = typeof suggested === "number" && Number.isFinite(suggested) ? suggested : 1000;
  return Math.min(5000, Math.max(250, ms));
}

/** `params` as the era has them: with the 2026-07-28 envelope, or as they are in the handshake era. */
export function framed(params: Record<string, unknown>, handshake: boolean | undefined): Record<string, unknown> {
  return handshake ? params : { ...params, _meta: envelope() };
}

/** A request about a task; the server's error reply is a CliError naming it. */
export async function send(
  raw: RawChannel,
  method: string,
  params: Record<string, unknown>,
  onProgress?: Parameters<RawChannel["request"]>[2],
  signal?: AbortSignal,
  handshake?: boolean,
) {
  try {
    return await raw.request(method, framed(params, handshake), onProgress, signal);
  } catch (error) {
    if (error instanceof RawError)
      throw new CliError(`the server answered ${method} with error ${error.code}: ${error.message}`);
    throw error;
  }
}

async function answerAll(requests: unknown, answer: Answerer, signal: AbortSignal) {
  const responses: Record<string, unknown> = {};
  for (const [key, request] of Object.entries((requests ?? {}) as Record<string, InputRequest>)) {
    responses[key] = await answer(request, signal);
  }
  return responses;
}

/**
 * `tools/call` declaring the tasks extension: input_required rounds are answered, a task is polled with tasks/get
 * (its questions answered with tasks/update) until it ends, and an interrupt cancels it.
 */
export async function callWithTasks(
  options: TaskCallOptions,
): Promise<TaskCallOutcome | { kind: "created"; task: Record<string, unknown> }> {
  const { raw, tool, args, progress, answer, interrupt } = options;
  let params: Record<string, unknown> = { name: tool, arguments: args };
  for (;;) {
    const result = await interruptible(
      send(raw, "tools/call", params, (p) => progress.show(describeProgress(tool, p))),
      interrupt,
    );
    if (result.resultType === "input_required") {
      const inputResponses = await answerAll(result.inputRequests, answer, interrupt);
      params = { name: tool, arguments: args, inputResponses };
      if (result.requestState !== undefined) params.requestState = result.requestState;
      continue;
    }
    if (result.resultType !== "task") return { kind: "complete", result };
    if (options.noWait) return { kind: "created", task: result };
    return follow(options, result);
  }
}

function describeTask(tool: string, task: Record<string, unknown>): string {
  const message = typeof task.statusMessage === "string" ? ` ${task.statusMessage}` : "";
  return `${tool}: ${String(task.status)}${message}`;
}

/** `promise`, or an exit-130 CliError as soon as `signal` aborts (before a task exists there is nothing to cancel). */
export function interruptible<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new CliError("interrupted", EXIT.interrupted));
  return new Promise<T>((resolve, reject) => {
    const stop = () => reject(new CliError("interrupted", EXIT.interrupted));
    signal.addEventListener("abort", stop, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", stop));
  });
}

/** Wait `ms`, or less when `signal` aborts. */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
  });
}

/** Follow a task of the extension until it ends: its questions answered, Ctrl-C cancels it. */
export async function follow(options: TaskCallOptions, created: Record<string, unknown>): Promise<TaskCallOutcome> {
  const { raw, tool, progress, answer, interrupt } = options;
  const taskId = String(created.taskId);
  // The task lives ttlMs from its creation (null: until it ends): no use asking after that.
  const ttl = created.ttlMs;
  const deadline = typeof ttl === "number" && Number.isFinite(ttl) ? Date.now() + ttl : Number.POSITIVE_INFINITY;
  const again = (method: string, params: Record<string, unknown>) =>
    persist(options, { taskId, deadline }, method, params);
  let task = created;
  for (;;) {
    progress.show(describeTask(tool, task));
    if (interrupt.aborted) {
      // A server that does not answer would hold Ctrl-C for the whole --timeout: a second one leaves at once.
      progress.show(`cancelling task ${taskId} (Ctrl-C again to leave it running)…`);
      try {
        await send(raw, "tasks/cancel", { taskId }, undefined, options.leave);
      } catch (error) {
        // Ctrl-C at a terminal interrupts a stdio server too: its tasks ended with it, and the exit is still 130.
        throw new CliError(`interrupted; task ${taskId} not cancelled: ${(error as Error).message}`, EXIT.interrupted);
      }
      return { kind: "cancelled", taskId, byUs: true };
    }
    if (task.status === "completed")
      return { kind: "complete", result: (task.result ?? {}) as Record<string, unknown> };
    if (task.status === "failed") {
      const error = (task.error ?? {
        code: ErrorCode.InternalError,
        message: "the task failed without saying why",
      }) as {
        code: number;
        message: string;
      };
      return { kind: "failed", taskId, error };
    }
    if (task.status === "cancelled") return { kind: "cancelled", taskId, byUs: false };
    if (task.status === "input_required") {
      let inputResponses: Record<string, unknown>;
      try {
        inputResponses = await answerAll(task.inputRequests, answer, interrupt);
      } catch (error) {
        // Nobody can answer: the task is cancelled rather than left waiting for an answer until it expires.
        if (!interrupt.aborted) await send(raw, "tasks/cancel", { taskId }).catch(() => {});
        if (interrupt.aborted) continue;
        throw error;
      }
      await again("tasks/update", { taskId, inputResponses });
    } else await pause(pollInterval(task.pollIntervalMs), interrupt);
    if (!interrupt.aborted) task = (await again("tasks/get", { taskId })) ?? task;
  }
}

/**
 * Send a request about a task, again and again while the server cannot take it (502/503/504, unreachable, no
 * answer in time), honouring `Retry-After`, until the task's TTL passes. Undefined when interrupted meanwhile; any
 * other failure gives up on the task, naming it: exit 3 when the server went away, else 1.
 */
export async function persist(
  options: TaskCallOptions,
  task: { taskId: string; deadline: number },
  method: string,
  params: Record<string, unknown>,
): Promise<Record<string, unknown> | undefined> {
  const { raw, tool, progress, interrupt, url } = options;
  const kept = Number.isFinite(task.deadline) ? ` (kept until ${new Date(task.deadline).toISOString()} at most)` : "";
  const later = `\ntask ${task.taskId}: toolsmith task follow ${url} ${task.taskId} asks for it${kept}`;
  const left = (why: string, code: ExitCode) =>
    new CliError(`gave up on task ${task.taskId} (${tool}): ${why}${url === undefined ? "" : later}`, code);
  for (let failures = 1; ; failures++) {
    try {
      // Ctrl-C ends the wait for a poll at once, rather than when a server that stopped answering times out.
      return await raw.request(method, framed(params, options.handshake), undefined, interrupt);
    } catch (error) {
      // Ctrl-C (which at a terminal also ends a stdio server): the caller cancels the task, or says it could not.
      if (interrupt.aborted) return undefined;
      if (error instanceof RawError)
        throw left(`the server answered ${method} with error ${error.code}: ${error.message}`, EXIT.failed);
      if (error instanceof ConnectionClosed) throw left("the connection to the server closed", EXIT.connect);
      if (!(error instanceof Unavailable || error instanceof TimedOut))
        throw left((error as Error).message, EXIT.failed);
      const now = Date.now();
      if (now >= task.deadline)
        throw left(`its TTL passed while the server could not answer (${error.message})`, EXIT.connect);
      const wait = Math.min(task.deadline - now, retryDelay(failures, (error as Unavailable).retryAfterMs));
      const reason = error instanceof Unavailable ? error.reason : error.message;
      progress.show(`${tool}: ${reason}; asking again in ${(wait / 1000).toFixed(1)} s`);
      await pause(wait, interrupt);
      if (interrupt.aborted) return undefined;
    }
  }
}
