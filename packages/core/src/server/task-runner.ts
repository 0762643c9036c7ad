import type { TaskService } from "../connection/server-core.js";
import type { RequestContext, TaskRun } from "../context/context.js";
import type { LogEntry } from "../context/logger.js";
import type { RequestContextImpl } from "../context/request-context.js";
import type { TaskRecord, Unfollow } from "../engine/engine.js";
import type { RequestedTask } from "../protocol/core-tasks.js";
import type { RevisionFeatures } from "../protocol/revision.js";
import { declaresTasks, type TaskPolicy, type taskDefaultsOf, tasksRequired } from "../protocol/tasks.js";
import { McpError, messageOf } from "../wire/errors.js";
import { ErrorCode } from "../wire/json-rpc.js";
import type { MaybePromise } from "../wire/maybe.js";
import { type CoreTaskEngine, CoreTaskMethods, indexEntry } from "./core-task-methods.js";
import { coreCreateTaskResult } from "./core-task-wire.js";
import { RunningTask } from "./running-task.js";
import { TaskMethods } from "./task-methods.js";
import { connectionOutlet } from "./task-outlet.js";
import { TaskSightings } from "./task-sightings.js";
import { MAX_LISTEN_TASKS, TaskWatch } from "./task-watch.js";
import { createTaskResult } from "./task-wire.js";

// The server's tasks: each task's handler runs here, under the task (not the request that made it, whose connection
// may close once it is answered); every tasks/* request is answered from the engine, on any process (task-methods.ts
// for the extension's, core-task-methods.ts for 2025-11-25's).

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
 * With a shared engine, each task running here reads its kept answers and status this often: a signal can be missed
 * without the engine noticing a break (a re-subscription that timed out on a stalled Redis never resumes), and a
 * cancellation must still stop the handler. One round trip per running task per period.
 */
export const RECHECK_MS = 10_000;

/** The server's task runner and its tasks/* methods. */
export class TaskRunner implements TaskService {
  readonly #engine: () => CoreTaskEngine;
  readonly #tasking: () => boolean;
  // The extension's tasks/get|update|cancel, and 2025-11-25's tasks/get|result|list|cancel.
  readonly #methods: TaskMethods;
  readonly #core: CoreTaskMethods;
  readonly #ready: () => MaybePromise<void>;
  readonly #defaults: TaskSettings;
  readonly #log: (entry: LogEntry) => void;
  // How many tasks each caller (`callerKey`) has running here: bounded by maxPerCaller.
  readonly #running = new Map<string, number>();
  // The tasks whose handler runs here: told to look again when the engine resumes, and every RECHECK_MS.
  readonly #here = new Set<RunningTask>();
  // The handshake-era tasks made here whose client has not yet named them: their questions wait (task-sightings.ts).
  readonly sightings = new TaskSightings();
  #recheck: ReturnType<typeof setInterval> | undefined;

  /**
   * `ready` starts the engine (once): a 2026-07-28 request may be a fresh process's first, and tasks need it.
   * `tasking`: whether the server declares tasks.
   */
  constructor(
    engine: () => CoreTaskEngine,
    ready: () => MaybePromise<void>,
    defaults: TaskSettings,
    log: (entry: LogEntry) => void,
    tasking: () => boolean,
  ) {
    this.#engine = engine;
    this.#tasking = tasking;
    this.#methods = new TaskMethods(engine, ready);
    this.#core = new CoreTaskMethods(engine, ready, this.sightings);
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
  #hold(task: RunningTask, engine: CoreTaskEngine): () => void {
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
    requested?: RequestedTask,
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
      return await this.#begin(ctx, tool, policy, run, caller, ended, requested);
    } catch (error) {
      ended();
      throw error;
    }
  }

  // `requested`: a handshake-era task (2025-11-25), its TTL no longer than the request asked.
  async #begin(
    ctx: RequestContextImpl,
    tool: string,
    policy: TaskPolicy,
    run: TaskRun,
    caller: string,
    ended: () => void,
    requested: RequestedTask | undefined,
  ): Promise<Record<string, unknown>> {
    const engine = this.#engine();
    const now = Date.now();
    const owner = ctx.auth?.subject;
    const kept = policy.ttlMs === undefined ? this.#defaults.ttlMs : policy.ttlMs;
    const asked = requested?.ttl;
    const record: TaskRecord = {
      id: crypto.randomUUID(),
      owner,
      node: engine.node,
      tool,
      ...(requested === undefined ? {} : { era: "handshake" as const }),
      // Without a principal a handshake-era task is its session's.
      ...(requested === undefined || owner !== undefined ? {} : { session: ctx.session ?? "" }),
      status: "working",
      createdAt: now,
      lastUpdatedAt: now,
      ttlMs: asked === undefined ? kept : kept === null ? asked : Math.min(kept, asked),
      pollIntervalMs: policy.pollIntervalMs ?? this.#defaults.pollIntervalMs,
      inputRequests: {},
    };
    // Listed for its caller before it exists: a tasks/get that finds it has a tasks/list that does too.
    if (requested !== undefined) {
      const { key, ttlMs } = indexEntry(record, ctx);
      await engine.writeRecord(key, record.id, ttlMs === undefined ? undefined : { ttlMs });
    }
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
    const outlet =
      requested === undefined ? undefined : connectionOutlet(ctx, engine, record.id, this.#log, this.sightings);
    const task = new RunningTask(
      engine,
      record.id,
      tool,
      this.#log,
      () => {
        release();
        ended();
      },
      outlet,
    );
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
    return requested === undefined ? createTaskResult(record) : coreCreateTaskResult(record);
  }

  tasking(): boolean {
    return this.#tasking();
  }

  get(params: Record<string, unknown> | undefined, ctx: RequestContextImpl): MaybePromise<Record<string, unknown>> {
    return ctx.revision.tasks === "core" ? this.#core.get(params, ctx) : this.#methods.get(params, ctx);
  }

  /** The tasks extension only (2025-11-25 has no tasks/update). */
  update(params: Record<string, unknown> | undefined, ctx: RequestContextImpl): MaybePromise<Record<string, unknown>> {
    return this.#methods.update(params, ctx);
  }

  cancel(params: Record<string, unknown> | undefined, ctx: RequestContextImpl): MaybePromise<Record<string, unknown>> {
    return ctx.revision.tasks === "core" ? this.#core.cancel(params, ctx) : this.#methods.cancel(params, ctx);
  }

  /** 2025-11-25 only (the revision table removes it elsewhere). */
  result(params: Record<string, unknown> | undefined, ctx: RequestContextImpl): Promise<Record<string, unknown>> {
    return this.#core.result(params, ctx);
  }

  /** 2025-11-25 only (the revision table removes it elsewhere). */
  list(params: Record<string, unknown> | undefined, ctx: RequestContextImpl): MaybePromise<Record<string, unknown>> {
    return this.#core.list(params, ctx);
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
