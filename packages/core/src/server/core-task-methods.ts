import type { RequestContextImpl } from "../context/request-context.js";
import type { EngineLifecycle, RecordStore, TaskRecord, TaskStore } from "../engine/engine.js";
import { isTerminal } from "../engine/memory-tasks.js";
import { McpError } from "../wire/errors.js";
import { ErrorCode } from "../wire/json-rpc.js";
import { andThen, type MaybePromise } from "../wire/maybe.js";
import { awaitCoreOutcome } from "./core-task-result.js";
import {
  alreadyTerminal,
  coreOwnerKey,
  coreTask,
  coreTaskId,
  coreTaskNotFound,
  ownCoreTask,
} from "./core-task-wire.js";
import type { TaskSightings } from "./task-sightings.js";

// 2025-11-25's tasks/get, tasks/result, tasks/list and tasks/cancel, on the same store as the extension's: each
// answered from the engine on any process, for the caller's own handshake-era tasks only (another's, the
// extension's and a missing one alike are "not found").

/** The engine as these methods use it: tasks, and the records that index each caller's tasks for tasks/list. */
export type CoreTaskEngine = EngineLifecycle & TaskStore & RecordStore;

/** How many tasks one tasks/list page holds at most. */
export const TASKS_PAGE = 100;

/** How many blocking tasks/result requests one session may have waiting on one process. */
export const MAX_WAITING_RESULTS = 100;

/** A cursor as tasks/list gives it: the creation time and id of the last task on the page. */
const CURSOR = /^\d{15}:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Where a caller's tasks are listed: its own prefix in the engine's records. */
function indexPrefix(ctx: RequestContextImpl): string {
  return `t:${coreOwnerKey(ctx)}:`;
}

/** The record that lists `task` for its caller: ordered by creation, kept as long as the task. */
export function indexEntry(task: TaskRecord, ctx: RequestContextImpl): { key: string; ttlMs: number | undefined } {
  const key = `${indexPrefix(ctx)}${String(task.createdAt).padStart(15, "0")}:${task.id}`;
  return { key, ttlMs: task.ttlMs === null ? undefined : task.ttlMs };
}

/** The handshake-era tasks/* methods. */
export class CoreTaskMethods {
  readonly #engine: () => CoreTaskEngine;
  readonly #ready: () => MaybePromise<void>;
  readonly #sightings: TaskSightings;
  // How many tasks/result requests wait, by session (counted before anything is awaited).
  readonly #waiting = new Map<string, number>();

  constructor(engine: () => CoreTaskEngine, ready: () => MaybePromise<void>, sightings: TaskSightings) {
    this.#engine = engine;
    this.#ready = ready;
    this.#sightings = sightings;
  }

  // The client named the task, so it holds it: its questions may go to the connection that made it.
  #named(params: Record<string, unknown> | undefined, ctx: RequestContextImpl): string {
    const id = coreTaskId(params);
    this.#sightings.saw(ctx.session, id);
    return id;
  }

  #own(params: Record<string, unknown> | undefined, ctx: RequestContextImpl): MaybePromise<TaskRecord> {
    const id = this.#named(params, ctx);
    return andThen(this.#ready(), () =>
      andThen(this.#engine().loadTask(id), (found) => {
        const task = ownCoreTask(found, ctx);
        if (task === undefined) throw coreTaskNotFound();
        return task;
      }),
    );
  }

  get(params: Record<string, unknown> | undefined, ctx: RequestContextImpl): MaybePromise<Record<string, unknown>> {
    return andThen(this.#own(params, ctx), coreTask);
  }

  cancel(params: Record<string, unknown> | undefined, ctx: RequestContextImpl): MaybePromise<Record<string, unknown>> {
    return andThen(this.#own(params, ctx), (task) => {
      if (isTerminal(task.status)) throw alreadyTerminal(task);
      // Cancelled in the store before the reply; the process running it hears the change and stops its handler.
      const change = { kind: "cancel", statusMessage: "The task was cancelled by request." } as const;
      return andThen(this.#engine().changeTask(task.id, change), (after) => {
        if (after === undefined) throw coreTaskNotFound();
        // It ended another way meanwhile: a terminal task is not cancelled.
        if (after.status !== "cancelled") throw alreadyTerminal(after);
        return coreTask(after);
      });
    });
  }

  async result(params: Record<string, unknown> | undefined, ctx: RequestContextImpl): Promise<Record<string, unknown>> {
    const id = this.#named(params, ctx);
    // Each waiting one follows its task and keeps a timer until the task ends: bounded per session, and let go when
    // the request is cancelled or its connection or session ends (its signal).
    const session = ctx.session ?? "";
    const waiting = this.#waiting.get(session) ?? 0;
    if (waiting >= MAX_WAITING_RESULTS) {
      throw new McpError(
        ErrorCode.ServerError,
        `Too many tasks/result requests waiting in this session (at most ${MAX_WAITING_RESULTS}); wait for one to end, or poll tasks/get`,
      );
    }
    this.#waiting.set(session, waiting + 1);
    try {
      await this.#ready();
      return await awaitCoreOutcome(this.#engine(), id, ctx);
    } finally {
      const left = (this.#waiting.get(session) ?? 1) - 1;
      if (left <= 0) this.#waiting.delete(session);
      else this.#waiting.set(session, left);
    }
  }

  list(params: Record<string, unknown> | undefined, ctx: RequestContextImpl): MaybePromise<Record<string, unknown>> {
    const cursor = params?.cursor;
    if (cursor !== undefined && (typeof cursor !== "string" || !CURSOR.test(cursor))) {
      throw new McpError(ErrorCode.InvalidParams, "Invalid params: cursor is not one this server gave");
    }
    const prefix = indexPrefix(ctx);
    return andThen(this.#ready(), () => {
      const engine = this.#engine();
      const after = cursor === undefined ? undefined : `${prefix}${cursor}`;
      return andThen(engine.listRecords(prefix, { after, limit: TASKS_PAGE }), async (entries) => {
        const found = await Promise.all(entries.map((entry) => engine.loadTask(entry.value)));
        // A listed task since purged (its TTL passed) is left out.
        const tasks = found.flatMap((task) => {
          const own = ownCoreTask(task, ctx);
          return own === undefined ? [] : [coreTask(own)];
        });
        const last = entries.at(-1);
        const result: Record<string, unknown> = { tasks };
        if (entries.length === TASKS_PAGE && last !== undefined) result.nextCursor = last.key.slice(prefix.length);
        return result;
      });
    });
  }
}
