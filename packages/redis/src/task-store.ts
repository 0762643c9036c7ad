import {
  LeaseLost,
  type TaskChange,
  type TaskLimit,
  type TaskRecord,
  type TaskSignal,
  type TaskStore,
} from "@toolsmith/core/engine";
import { type RedisLifecycle, RUN_KEEP_MS } from "./lifecycle.js";
import { bounded } from "./options.js";
import { answerArgs, changeArgs, createArgs, decodeTask } from "./task-records.js";
import * as taskScripts from "./task-scripts.js";

/**
 * The Redis engine's `TaskStore`: each task a hash (`t:<id>`) with its kept answers, changed and signalled (`tc:<id>`)
 * in one script; the tasks this process runs under its lease (`rt:<node>`), claimed by another's tick once it lapsed.
 */
export class RedisTaskStore implements TaskStore {
  readonly #redis: RedisLifecycle;
  // The tasks this process runs by its own account: a fenced change needs it held here, and refused only when
  // another process claimed it (Redis may lose or expire the rt: entries, that is no claim).
  readonly #here = new Set<string>();

  constructor(redis: RedisLifecycle) {
    this.#redis = redis;
  }

  async createTask(task: TaskRecord, limit?: TaskLimit): Promise<"created" | "full" | "full-for-caller"> {
    const bound =
      limit === undefined
        ? undefined
        : { caller: limit.caller, perCaller: bounded(limit.perCaller), max: bounded(limit.max) };
    const outcome = await this.#redis.run(taskScripts.CREATE_TASK, createArgs(task, Date.now(), bound));
    if (outcome === "exists") throw new Error(`A task with id ${JSON.stringify(task.id)} already exists`);
    return outcome as "created" | "full" | "full-for-caller";
  }

  async loadTask(id: string): Promise<TaskRecord | undefined> {
    return decodeTask(await this.#redis.run(taskScripts.LOAD_TASK, [id, Date.now()]));
  }

  async changeTask(
    id: string,
    change: TaskChange,
    options?: { readonly running?: boolean },
  ): Promise<TaskRecord | undefined> {
    const fence = options?.running ? [this.#redis.node, this.#here.has(id) ? "1" : "0"] : ["", ""];
    const reply = await this.#redis.run(taskScripts.CHANGE_TASK, [id, Date.now(), ...changeArgs(change), ...fence]);
    if (reply === "lost") throw new LeaseLost(`task ${id} is no longer run by this process`);
    return decodeTask(reply);
  }

  async answerTask(id: string, responses: Readonly<Record<string, unknown>>): Promise<readonly string[]> {
    return (await this.#redis.run(taskScripts.ANSWER_TASK, [id, Date.now(), ...answerArgs(responses)])) as string[];
  }

  async takeAnswers(
    id: string,
  ): Promise<{ readonly task: TaskRecord; readonly answers: Readonly<Record<string, unknown>> } | undefined> {
    const reply = await this.#redis.run(taskScripts.TAKE_ANSWERS, [id, Date.now()]);
    if (!Array.isArray(reply)) return undefined;
    const [task, answers] = reply as [string, string];
    return { task: decodeTask(task) as TaskRecord, answers: JSON.parse(answers) as Record<string, unknown> };
  }

  async followTask(id: string, listener: (signal: TaskSignal) => void): Promise<() => Promise<void>> {
    const open = this.#redis.started();
    return this.#redis.call(() => open.channels.listen(`${open.prefix}tc:${id}`, listener as (m: unknown) => void));
  }

  async taskRunning(id: string): Promise<void> {
    const { node, settings } = this.#redis;
    await this.#redis.run(taskScripts.TASK_RUNNING, [node, settings.leaseMs, id, RUN_KEEP_MS]);
    this.#here.add(id);
  }

  async taskFinished(id: string): Promise<void> {
    const open = this.#redis.started();
    this.#here.delete(id);
    await this.#redis.call(() => open.main.srem(`${open.prefix}rt:${this.#redis.node}`, id));
  }

  onOrphanTask(listener: (id: string) => void): () => void {
    this.#redis.orphanTasks.add(listener);
    return () => void this.#redis.orphanTasks.delete(listener);
  }
}
