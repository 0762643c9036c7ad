import type { RequestContextImpl } from "../context/request-context.js";
import type { TaskRecord, TaskStore } from "../engine/engine.js";
import { isTerminal } from "../engine/memory-tasks.js";
import { coreTaskNotFound, coreTaskOutcome, ownCoreTask, relatedMeta } from "./core-task-wire.js";
import { errorAnswer } from "./task-questions.js";

// 2025-11-25's tasks/result: it blocks until the task ends, then answers exactly what the request would have. While
// the task waits on the client, each outstanding question goes out on this request's own stream, tied to the task,
// and its answer is given to the task (`answerTask`) on whatever process this runs, a JSON-RPC error or malformed
// result too (the handler's ask rejects with it, as outside a task, and this goes on waiting); a question answered
// otherwise (the side channel: task-outlet.ts) is withdrawn here. A question not answered at all ends nothing: the
// task stays input_required, and this waits on until the task ends (answered elsewhere, cancelled) or its TTL passes
// (it is deleted: -32602, as for any task not found).

/** A signal can be missed (a re-subscription): the task is looked at again this often; a purged one is then gone. */
const RELOOK_MS = 10_000;

/** What ended one wait: the task as a change left it, or "look" (load it again). */
type Woken = TaskRecord | "look";

/** Wakes one waiter; what comes while none waits is kept (the latest) for the next. */
class Waker {
  #waiter: ((woken: Woken) => void) | undefined;
  #kept: Woken | undefined;

  wake(woken: Woken): void {
    const waiter = this.#waiter;
    this.#waiter = undefined;
    if (waiter === undefined) this.#kept = this.#kept === "look" ? "look" : woken;
    else waiter(woken);
  }

  /** The next wake-up; at the latest a look when `expiresAt` (ms since the epoch) has just passed, if it is near. */
  next(expiresAt: number | undefined): Promise<Woken> {
    const kept = this.#kept;
    this.#kept = undefined;
    if (kept !== undefined) return Promise.resolve(kept);
    const left = expiresAt === undefined ? -1 : expiresAt - Date.now();
    const delay = left >= 0 ? Math.min(RELOOK_MS, left + 1) : RELOOK_MS;
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.wake("look"), delay);
      (timer as { unref?: () => void }).unref?.();
      this.#waiter = (woken) => {
        clearTimeout(timer);
        resolve(woken);
      };
    });
  }
}

/** The outcome of task `id` for the caller of `ctx`, once it ends. */
export async function awaitCoreOutcome(
  engine: TaskStore,
  id: string,
  ctx: RequestContextImpl,
): Promise<Record<string, unknown>> {
  const waker = new Waker();
  let failed: unknown;
  // Followed before it is looked at: no change falls between the look and the follow.
  const unfollow = await engine.followTask(id, (signal) => {
    if (signal.type === "changed") waker.wake(signal.task);
  });
  const asking = new Map<string, AbortController>();
  const stop = () => waker.wake("look");
  ctx.signal.addEventListener("abort", stop, { once: true });
  try {
    let task = ownCoreTask(await engine.loadTask(id), ctx);
    for (;;) {
      if (ctx.signal.aborted) throw ctx.signal.reason;
      if (failed !== undefined) throw failed;
      if (task === undefined) throw coreTaskNotFound();
      if (isTerminal(task.status)) return coreTaskOutcome(task);
      forward(task, asking, engine, ctx, (error) => {
        failed ??= error;
        stop();
      });
      // Past its TTL the task is deleted (a load finds nothing): the wait ends there as for any task gone.
      const next = await waker.next(task.ttlMs === null ? undefined : task.createdAt + task.ttlMs);
      task = ownCoreTask(next === "look" ? await engine.loadTask(id) : next, ctx);
    }
  } finally {
    ctx.signal.removeEventListener("abort", stop);
    for (const question of asking.values()) question.abort();
    await unfollow();
  }
}

// Send each outstanding question not yet sent on this stream; withdraw those no longer outstanding.
function forward(
  task: TaskRecord,
  asking: Map<string, AbortController>,
  engine: TaskStore,
  ctx: RequestContextImpl,
  fail: (error: unknown) => void,
): void {
  for (const [key, question] of asking) {
    if (!Object.hasOwn(task.inputRequests, key)) {
      question.abort();
      asking.delete(key);
    }
  }
  for (const key of Object.keys(task.inputRequests)) {
    if (asking.has(key)) continue;
    const request = task.inputRequests[key];
    if (request === undefined) continue;
    const question = new AbortController();
    asking.set(key, question);
    ctx
      .requestClient(request.method, { ...request.params, _meta: relatedMeta(task.id) }, question.signal)
      .then(
        (answer) => engine.answerTask(task.id, { [key]: answer }),
        (error: unknown) => {
          if (question.signal.aborted) return;
          const answer = errorAnswer(error);
          if (answer !== undefined) return engine.answerTask(task.id, { [key]: answer });
          // Not answered (timed out, the stream ended): the question stays asked and the task input_required, and
          // this goes on waiting for the task's end; it is not asked again on this stream (another tasks/result asks
          // it, or the side channel's answer, a cancellation or the TTL ends the wait).
        },
      )
      .catch(fail);
  }
}
