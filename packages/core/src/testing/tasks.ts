import type { TaskInputRequest } from "../engine/engine.js";
import { isPlainObject } from "../wire/json-rpc.js";
import type { MaybePromise } from "../wire/maybe.js";
import type { CallToolResult } from "../wire/types.js";

// The tasks extension (io.modelcontextprotocol/tasks) seen from the test client: a task's handle, and the polling
// that drives it to its end while answering what it asks.

/** Where a task stands; the last three are terminal. */
export type TestTaskStatus = "working" | "input_required" | "completed" | "cancelled" | "failed";

/** A task as the server describes it (the fields of a `CreateTaskResult`). */
export interface TestTask {
  taskId: string;
  status: TestTaskStatus;
  statusMessage?: string;
  /** ISO 8601. */
  createdAt: string;
  lastUpdatedAt: string;
  /** Milliseconds from creation the server keeps it, or null for as long as it likes. */
  ttlMs: number | null;
  pollIntervalMs?: number;
  [key: string]: unknown;
}

/** The `tasks/get` answer: the task, with what its status carries inlined. */
export interface TestDetailedTask extends TestTask {
  /** input_required: the questions still open, by key. */
  inputRequests?: Record<string, TaskInputRequest>;
  /** completed: the tool's result (an `isError` result included). */
  result?: CallToolResult;
  /** failed: the protocol error that ended it. */
  error?: { code: number; message: string; data?: unknown };
}

/** How `TaskHandle.wait` drives a task. */
export interface TaskWaitOptions {
  /**
   * Answers one open question; by default the client's own `elicit`, `sample` and `roots` do, as they answer a
   * synchronous call's.
   */
  answer?: (request: TaskInputRequest, key: string) => MaybePromise<Record<string, unknown>>;
  /** Told each `tasks/get` answer that differs from the one before (status, message or open questions). */
  onStatus?: (task: TestDetailedTask) => void;
  /** Milliseconds between polls; the task's `pollIntervalMs` by default (a `setTimeout`, so fake timers drive it). */
  pollIntervalMs?: number;
  /** Aborting it stops the wait (the task itself runs on: `cancel()` ends it). */
  signal?: AbortSignal;
}

/** A task the test client started with `client.task(name, args)`. */
export interface TaskHandle {
  readonly taskId: string;
  /** The `CreateTaskResult` the `tools/call` answered. */
  readonly created: TestTask & { resultType: "task" };
  /** `tasks/get`. */
  get(): Promise<TestDetailedTask>;
  /** `tasks/update`: answers to open questions, by key. */
  update(responses: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** `tasks/cancel`. */
  cancel(): Promise<Record<string, unknown>>;
  /** Poll until the task is terminal, answering each question it asks on the way; resolves to its last state. */
  wait(options?: TaskWaitOptions): Promise<TestDetailedTask>;
}

/** What a handle needs of its client. */
export interface TaskPort {
  request(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** The client's own answer to a question, as its handlers give it. */
  answer(method: string, params: Record<string, unknown>, signal: AbortSignal | undefined): Promise<unknown>;
}

const TERMINAL: ReadonlySet<string> = new Set(["completed", "cancelled", "failed"]);

/** Whether `status` ends a task. */
export function isTerminal(status: string): boolean {
  return TERMINAL.has(status);
}

/** The handle of the task `created` announced; throws, saying why, when the call was answered without a task. */
export function taskHandle(port: TaskPort, name: string, created: Record<string, unknown>): TaskHandle {
  if (created.resultType !== "task" || typeof created.taskId !== "string") {
    throw new Error(
      `tools/call of ${JSON.stringify(name)} was answered without a task (resultType ${JSON.stringify(created.resultType ?? "complete")}): give the tool a task option ("optional" or "required") and declare the extension (createTestClient(server, { extensions: { tasks: true } })) on 2026-07-28`,
    );
  }
  const taskId = created.taskId;
  const get = async () => (await port.request("tasks/get", { taskId })) as unknown as TestDetailedTask;
  const update = (inputResponses: Record<string, unknown>) => port.request("tasks/update", { taskId, inputResponses });
  return {
    taskId,
    created: created as unknown as TestTask & { resultType: "task" },
    get,
    update,
    cancel: () => port.request("tasks/cancel", { taskId }),
    wait: (options = {}) => drive(port, get, update, options),
  };
}

async function drive(
  port: TaskPort,
  get: () => Promise<TestDetailedTask>,
  update: (responses: Record<string, unknown>) => Promise<unknown>,
  { answer, onStatus, pollIntervalMs, signal }: TaskWaitOptions,
): Promise<TestDetailedTask> {
  // Keys are never reused within a task: one answered stays answered, even if a poll still shows it open.
  const answered = new Set<string>();
  let last: string | undefined;
  for (;;) {
    signal?.throwIfAborted();
    const task = await get();
    const seen = JSON.stringify([task.status, task.statusMessage, Object.keys(task.inputRequests ?? {})]);
    if (seen !== last) {
      last = seen;
      onStatus?.(task);
    }
    if (isTerminal(task.status)) return task;
    if (task.status === "input_required" && isPlainObject(task.inputRequests)) {
      const responses: Record<string, unknown> = {};
      for (const [key, request] of Object.entries(task.inputRequests)) {
        if (answered.has(key)) continue;
        responses[key] = answer
          ? await answer(request, key)
          : await port.answer(request.method, { ...request.params }, signal);
        answered.add(key);
      }
      if (Object.keys(responses).length > 0) {
        await update(responses);
        continue;
      }
    }
    await sleep(pollIntervalMs ?? task.pollIntervalMs ?? 0, signal);
  }
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
