import type { TaskWatching } from "../connection/server-core.js";
import type { LogEntry } from "../context/logger.js";
import type { RequestContextImpl } from "../context/request-context.js";
import type { TaskRecord, TaskSignal, TaskStore, Unfollow } from "../engine/engine.js";
import { isTerminal } from "../engine/memory-tasks.js";
import { messageOf } from "../wire/errors.js";
import { ErrorCode } from "../wire/json-rpc.js";
import { detailedTask, ownTask } from "./task-wire.js";

// `subscriptions/listen` with `taskIds` (the tasks extension): the caller's own tasks, followed on the engine (so a
// task running on another process is heard too), each change told as the DetailedTask tasks/get would answer.

/** At most this many task ids on one listen: each is followed on the engine while the stream is open. */
export const MAX_LISTEN_TASKS = 100;

/**
 * What a follower is told of a task whose TTL passed before it ended: the extension lets a server mark such a task
 * failed and then delete it, which the engine does at once (a load no longer finds it).
 */
export const EXPIRED_ERROR = {
  code: ErrorCode.ServerError,
  message: "The task expired: its TTL passed before it finished",
} as const;

// setTimeout's longest delay: a later expiry is waited for in steps.
const MAX_TIMER_MS = 2 ** 31 - 1;
// A load that failed at the expiry is tried again after this long, doubled at each failure up to the most: while
// the engine is down, a stream following many tasks must not flood it (nor the log, told once per outage).
const RETRY_MS = 1000;
const MAX_RETRY_MS = 30_000;

/** The tasks one listen stream follows, from its acknowledgement until its end. */
export class TaskWatch implements TaskWatching {
  /** The ids acknowledged: those that exist and are the caller's, in the order asked. */
  readonly taskIds: readonly string[];
  readonly #unfollows: Map<string, Unfollow>;
  readonly #engine: TaskStore;
  readonly #log: (entry: LogEntry) => void;
  // Each followed task as last known, and the timer that looks for it when its TTL has passed.
  readonly #last = new Map<string, TaskRecord>();
  readonly #expiries = new Map<string, ReturnType<typeof setTimeout>>();
  // Each task's failed looks in a row; whether the last look at any failed (the outage already told).
  readonly #failures = new Map<string, number>();
  #failing = false;
  // Changes heard before the acknowledgement went out; told right after it, in order.
  #buffered: TaskRecord[] | undefined = [];
  #send: ((task: Record<string, unknown>) => void) | undefined;

  private constructor(
    taskIds: readonly string[],
    unfollows: Map<string, Unfollow>,
    engine: TaskStore,
    log: (entry: LogEntry) => void,
  ) {
    this.taskIds = taskIds;
    this.#unfollows = unfollows;
    this.#engine = engine;
    this.#log = log;
  }

  /**
   * Follow each id, then load it: a change after the listen arrived is never missed. Ids unknown or another caller's
   * are unfollowed and left out, as silently for one as for the other.
   */
  static async open(
    engine: TaskStore,
    ids: readonly string[],
    ctx: RequestContextImpl,
    log: (entry: LogEntry) => void,
  ): Promise<TaskWatch> {
    const unique = [...new Set(ids)];
    const unfollows = new Map<string, Unfollow>();
    let watch: TaskWatch | undefined;
    const early: { id: string; task: TaskRecord }[] = [];
    const heard = (id: string) => (signal: TaskSignal) => {
      if (signal.type !== "changed") return;
      if (watch === undefined) early.push({ id, task: signal.task });
      else watch.#heard(id, signal.task);
    };
    const followed = await Promise.allSettled(
      unique.map(async (id) => {
        unfollows.set(id, await engine.followTask(id, heard(id)));
      }),
    );
    const loaded = await Promise.allSettled(unique.map((id) => engine.loadTask(id)));
    const failure = [...followed, ...loaded].find((outcome) => outcome.status === "rejected");
    const own = unique.filter((_, i) => {
      const outcome = loaded[i];
      return outcome?.status === "fulfilled" && ownTask(outcome.value, ctx) !== undefined;
    });
    watch = new TaskWatch(own, unfollows, engine, log);
    for (const id of unique) if (failure !== undefined || !own.includes(id)) await watch.#unfollow(id);
    if (failure !== undefined) throw failure.reason;
    for (const [i, id] of unique.entries()) {
      const outcome = loaded[i];
      if (outcome?.status === "fulfilled" && outcome.value && own.includes(id)) watch.#known(id, outcome.value);
    }
    for (const { id, task } of early) watch.#heard(id, task);
    // A task already terminal changes no more: acknowledged, but nothing follows.
    for (const [i, id] of unique.entries()) {
      const outcome = loaded[i];
      if (outcome?.status === "fulfilled" && outcome.value && isTerminal(outcome.value.status)) {
        if (!early.some((change) => change.id === id)) await watch.#unfollow(id);
      }
    }
    return watch;
  }

  /** Tell the changes from now on (those heard before the acknowledgement first). */
  start(send: (task: Record<string, unknown>) => void): void {
    const buffered = this.#buffered ?? [];
    this.#buffered = undefined;
    this.#send = send;
    for (const task of buffered) send(detailedTask(task));
  }

  /** Unfollow every task still followed (the stream ended). */
  stop(): void {
    this.#send = undefined;
    this.#buffered = undefined;
    for (const id of [...this.#unfollows.keys()]) void this.#unfollow(id);
  }

  #heard(id: string, task: TaskRecord): void {
    if (!this.#unfollows.has(id)) return;
    this.#known(id, task);
    if (this.#buffered !== undefined) this.#buffered.push(task);
    else this.#send?.(detailedTask(task));
    // Its last notification is on its way: nothing more can change.
    if (isTerminal(task.status)) void this.#unfollow(id);
  }

  // The task as it is now; its expiry is watched from the first time it is known.
  #known(id: string, task: TaskRecord): void {
    this.#last.set(id, task);
    if (!this.#expiries.has(id) && !isTerminal(task.status)) this.#expireAt(id, task);
  }

  // Look for the task once its TTL has passed (none for ttlMs null): gone, it is told as failed, and let go.
  #expireAt(id: string, task: TaskRecord, delay?: number): void {
    if (task.ttlMs === null) return;
    const wait = delay ?? Math.min(Math.max(1, task.createdAt + task.ttlMs + 1 - Date.now()), MAX_TIMER_MS);
    const timer = setTimeout(() => void this.#check(id), wait);
    (timer as { unref?: () => void }).unref?.();
    this.#expiries.set(id, timer);
  }

  async #check(id: string): Promise<void> {
    this.#expiries.delete(id);
    if (!this.#unfollows.has(id)) return;
    let found: TaskRecord | undefined;
    try {
      found = await this.#engine.loadTask(id);
    } catch (error) {
      if (!this.#failing) {
        this.#log({ level: "warning", message: `could not look for expired task ${id}: ${messageOf(error)}`, error });
      }
      this.#failing = true;
      const failures = (this.#failures.get(id) ?? 0) + 1;
      this.#failures.set(id, failures);
      const last = this.#last.get(id);
      const delay = Math.min(RETRY_MS * 2 ** (failures - 1), MAX_RETRY_MS);
      if (last !== undefined && this.#unfollows.has(id)) this.#expireAt(id, last, delay);
      return;
    }
    this.#failing = false;
    this.#failures.delete(id);
    const last = this.#last.get(id);
    if (last === undefined || !this.#unfollows.has(id)) return;
    // Still there (this process's clock is behind the store's), or ended meanwhile (its change is on its way).
    if (found !== undefined) {
      if (!isTerminal(found.status)) this.#expireAt(id, found);
      return;
    }
    this.#heard(id, {
      ...last,
      status: "failed",
      statusMessage: EXPIRED_ERROR.message,
      inputRequests: {},
      error: EXPIRED_ERROR,
      lastUpdatedAt: Date.now(),
    });
  }

  async #unfollow(id: string): Promise<void> {
    const unfollow = this.#unfollows.get(id);
    if (unfollow === undefined) return;
    this.#unfollows.delete(id);
    this.#last.delete(id);
    this.#failures.delete(id);
    clearTimeout(this.#expiries.get(id));
    this.#expiries.delete(id);
    try {
      await unfollow();
    } catch (error) {
      this.#log({ level: "warning", message: `could not stop following task ${id}: ${messageOf(error)}`, error });
    }
  }
}
