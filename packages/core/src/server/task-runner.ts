import type { TaskService } from "../connection/server-core.js";
import type { RequestContext, TaskRun } from "../context/context.js";
import type { LogEntry } from "../context/logger.js";
import type { RequestContextImpl } from "../context/request-context.js";
import type { EngineLifecycle, TaskRecord, TaskStore, Unfollow } from "../engine/engine.js";
import { isTerminal } from "../engine/memory-tasks.js";
import type { RevisionFeatures } from "../protocol/revision.js";
import { declaresTasks, type TaskPolicy, type taskDefaultsOf, tasksRequired } from "../protocol/tasks.js";
import { tooDeep, tooDeepText } from "../wire/depth.js";
import { McpError, messageOf, shown } from "../wire/errors.js";
import { ErrorCode, isPlainObject } from "../wire/json-rpc.js";
import { andThen, type MaybePromise } from "../wire/maybe.js";
import { RunningTask } from "./running-task.js";
import { MAX_LISTEN_TASKS, TaskWatch } from "./task-watch.js";
import { checkedTaskId, createTaskResult, detailedTask, ownTask, taskNotFound } from "./task-wire.js";

// The server's tasks: each task's handler runs here, under the task (not the request that made it, whose connection
// may close once it is answered), and every tasks/* request is answered from the engine, on any process.

/** What a task that could not be started after it was stored is failed with. */
const UNSTARTED_ERROR = { code: ErrorCode.ServerError, message: "The task could not be started" } as const;

/** What a task whose process stopped is failed with. */
export const ORPHAN_ERROR = {
  code: ErrorCode.InternalError,
  message: "The server process running this task stopped before it finished",
} as const;

type TaskSettings = ReturnType<typeof taskDefaultsOf>;

/** The key of the caller neither authenticated nor placed by an address (stdio's one client). */
const UNKNOWN_CALLER = "unknown";

/**
 * The answers to the task's outstanding questions, each checked before any is taken (a refused update leaves the
 * task as it was); undefined when none is outstanding. Answers to other keys are ignored, whatever they hold.
 */
function outstandingAnswers(task: TaskRecord, responses: Record<string, unknown>): Record<string, unknown> | undefined {
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

/**
 * With a shared engine, each task running here reads its kept answers and status this often: a signal can be missed
 * without the engine noticing a break (a re-subscription that timed out on a stalled Redis never resumes), and a
 * cancellation must still stop the handler. One round trip per running task per period.
 */
export const RECHECK_MS = 10_000;

/** The server's task runner and its tasks/* methods. */
export class TaskRunner implements TaskService {
  readonly #engine: () => EngineLifecycle & TaskStore;
  readonly #ready: () => MaybePromise<void>;
  readonly #defaults: TaskSettings;
  readonly #log: (entry: LogEntry) => void;
  // How many tasks each caller (`callerKey`) has running here: bounded by maxPerCaller.
  readonly #running = new Map<string, number>();
  // The tasks whose handler runs here: told to look again when the engine resumes, and every RECHECK_MS.
  readonly #here = new Set<RunningTask>();
  #recheck: ReturnType<typeof setInterval> | undefined;

  /** `ready` starts the engine (once): a 2026-07-28 request may be a fresh process's first, and tasks need it. */
  constructor(
    engine: () => EngineLifecycle & TaskStore,
    ready: () => MaybePromise<void>,
    defaults: TaskSettings,
    log: (entry: LogEntry) => void,
  ) {
    this.#engine = engine;
    this.#ready = ready;
    this.#defaults = defaults;
    this.#log = log;
  }

  /**
   * Fail the tasks of processes that stopped (those the engine gives this process), and have this process's own
   * tasks take what they may have missed while the engine's subscription was down.
   */
  watchOrphans(): Unfollow {
    const engine = this.#engine();
    // Only a shared engine loses its subscription (the memory engine never resumes).
    const stopResume = engine.shared ? engine.onResume(() => this.#recheckAll()) : () => {};
    const stopOrphans = engine.onOrphanTask((id) => {
      Promise.resolve(
        engine.changeTask(id, { kind: "fail", error: ORPHAN_ERROR, statusMessage: ORPHAN_ERROR.message }),
      ).catch((error: unknown) =>
        this.#log({ level: "error", message: `task ${id}: could not fail it: ${messageOf(error)}`, error }),
      );
    });
    return () => {
      void stopResume();
      return stopOrphans();
    };
  }

  #recheckAll(): void {
    for (const task of this.#here) void task.recheck();
  }

  // A task runs here from now until `ended`: with a shared engine, checked periodically while any runs.
  #hold(task: RunningTask, engine: EngineLifecycle & TaskStore): () => void {
    this.#here.add(task);
    if (engine.shared && this.#recheck === undefined) {
      this.#recheck = setInterval(() => this.#recheckAll(), RECHECK_MS);
      (this.#recheck as { unref?: () => void }).unref?.();
    }
    return () => {
      this.#here.delete(task);
      if (this.#here.size === 0 && this.#recheck !== undefined) {
        clearInterval(this.#recheck);
        this.#recheck = undefined;
      }
    };
  }

  async start(
    ctx: RequestContextImpl,
    tool: string,
    policy: TaskPolicy,
    run: TaskRun,
  ): Promise<Record<string, unknown>> {
    // An anonymous caller is counted by its address; one the transport cannot place shares the unknown caller's count.
    const caller = ctx.caller ?? UNKNOWN_CALLER;
    const running = this.#running.get(caller) ?? 0;
    if (running >= this.#defaults.maxPerCaller) {
      throw new McpError(
        ErrorCode.ServerError,
        `Too many tasks running for one caller (at most ${this.#defaults.maxPerCaller}); wait for one to end, cancel one (tasks/cancel), or try again later`,
      );
    }
    // Counted before anything is awaited: calls at once cannot pass the bound together.
    this.#running.set(caller, running + 1);
    const ended = () => {
      const left = (this.#running.get(caller) ?? 1) - 1;
      if (left <= 0) this.#running.delete(caller);
      else this.#running.set(caller, left);
    };
    try {
      await this.#ready();
      return await this.#begin(ctx, tool, policy, run, caller, ended);
    } catch (error) {
      ended();
      throw error;
    }
  }

  async #begin(
    ctx: RequestContext,
    tool: string,
    policy: TaskPolicy,
    run: TaskRun,
    caller: string,
    ended: () => void,
  ): Promise<Record<string, unknown>> {
    const engine = this.#engine();
    const now = Date.now();
    const record: TaskRecord = {
      id: crypto.randomUUID(),
      owner: ctx.auth?.subject,
      node: engine.node,
      tool,
      status: "working",
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs: policy.ttlMs === undefined ? this.#defaults.ttlMs : policy.ttlMs,
      pollIntervalMs: policy.pollIntervalMs ?? this.#defaults.pollIntervalMs,
      inputRequests: {},
    };
    // Durable before the reply that announces it: a tasks/get anywhere finds it.
    const { maxStored: max, maxStoredPerCaller: perCaller } = this.#defaults;
    const created = await engine.createTask(record, { max, perCaller, caller });
    if (created !== "created") {
      const whose = created === "full" ? `on this server (at most ${max}` : `for one caller (at most ${perCaller}`;
      throw new McpError(
        ErrorCode.ServerError,
        `Too many tasks kept ${whose}, finished ones included); they are kept until their TTL passes; try again later`,
      );
    }
    let release = () => {};
    const task = new RunningTask(engine, record.id, tool, this.#log, () => {
      release();
      ended();
    });
    release = this.#hold(task, engine);
    try {
      await engine.taskRunning(record.id);
      task.unfollow = await engine.followTask(record.id, (signal) => task.heard(signal));
    } catch (error) {
      // Never announced, never to run: failed (if the store takes it) rather than left working, and not held.
      release();
      await Promise.allSettled([
        engine.changeTask(record.id, { kind: "fail", error: UNSTARTED_ERROR, statusMessage: UNSTARTED_ERROR.message }),
        engine.taskFinished(record.id),
      ]);
      throw error;
    }
    task.expireAfter(record.ttlMs);
    void task.run(ctx as RequestContext & { revision: RevisionFeatures }, run);
    return createTaskResult(record);
  }

  get(params: Record<string, unknown> | undefined, ctx: RequestContextImpl): MaybePromise<Record<string, unknown>> {
    const id = checkedTaskId("tasks/get", params, ctx);
    return andThen(this.#ready(), () =>
      andThen(this.#engine().loadTask(id), (found) => {
        const task = ownTask(found, ctx);
        if (task === undefined) throw taskNotFound();
        return detailedTask(task);
      }),
    );
  }

  update(params: Record<string, unknown> | undefined, ctx: RequestContextImpl): MaybePromise<Record<string, unknown>> {
    const id = checkedTaskId("tasks/update", params, ctx);
    const responses = params?.inputResponses;
    if (!isPlainObject(responses)) {
      throw new McpError(ErrorCode.InvalidParams, "Invalid params: inputResponses must be an object");
    }
    // Answers are copied and kept as JSON by the engine: a walk that deep would overflow the stack.
    const deep = tooDeep(responses);
    if (deep)
      throw new McpError(ErrorCode.InvalidParams, `Invalid params: ${tooDeepText("params.inputResponses", deep)}`);
    return andThen(this.#ready(), () => {
      const engine = this.#engine();
      return andThen(engine.loadTask(id), (found) => {
        const task = ownTask(found, ctx);
        if (task === undefined) throw taskNotFound();
        const answers = outstandingAnswers(task, responses);
        return answers === undefined ? {} : andThen(engine.answerTask(id, answers), () => ({}));
      });
    });
  }

  cancel(params: Record<string, unknown> | undefined, ctx: RequestContextImpl): MaybePromise<Record<string, unknown>> {
    const id = checkedTaskId("tasks/cancel", params, ctx);
    return andThen(this.#ready(), () => {
      const engine = this.#engine();
      return andThen(engine.loadTask(id), (found) => {
        const task = ownTask(found, ctx);
        if (task === undefined) throw taskNotFound();
        if (isTerminal(task.status)) return {};
        // Cancelled at once in the store; the process running it hears the change and aborts its handler.
        return andThen(engine.changeTask(id, { kind: "cancel" }), () => ({}));
      });
    });
  }

  async watch(taskIds: readonly string[], ctx: RequestContextImpl): Promise<TaskWatch> {
    if (!declaresTasks(ctx.revision, ctx.clientCapabilities)) throw tasksRequired("subscriptions/listen with taskIds");
    if (taskIds.length > MAX_LISTEN_TASKS) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `Invalid params: notifications.taskIds lists ${taskIds.length} tasks; one listen follows at most ${MAX_LISTEN_TASKS}`,
      );
    }
    await this.#ready();
    return TaskWatch.open(this.#engine(), taskIds, ctx, this.#log);
  }
}
