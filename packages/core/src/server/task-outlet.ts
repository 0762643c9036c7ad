import type { LogEntry } from "../context/logger.js";
import type { RequestContextImpl } from "../context/request-context.js";
import type { TaskInputRequest, TaskStore } from "../engine/engine.js";
import { isTerminal } from "../engine/memory-tasks.js";
import { messageOf } from "../wire/errors.js";
import { coreTask, relatedMeta } from "./core-task-wire.js";
import type { TaskOutlet } from "./running-task.js";
import { errorAnswer } from "./task-questions.js";
import type { TaskSightings } from "./task-sightings.js";

// A handshake-era task's side channel: the connection that made it is sent each question, tied to the task (the
// text lets a server deliver task messages on any stream; a client polling tasks/get until the task ends needs it),
// and told each status change. A blocking tasks/result carries the same questions (core-task-result.ts): whichever
// answer the engine takes first resumes the handler, and the other route's question is withdrawn.

/** The outlet of task `id`, made by the request `ctx` (whose connection may close first: then only tasks/result asks). */
export function connectionOutlet(
  ctx: RequestContextImpl,
  engine: TaskStore,
  id: string,
  log: (entry: LogEntry) => void,
  sightings: TaskSightings,
): TaskOutlet {
  let told = "working";
  // Nothing goes out before the reply that announces the task: a client cannot place a message about a task it
  // has not heard of. Held until a turn after the request is answered (its reply is then written).
  let held: (() => void)[] | undefined = [];
  const whenAnswered = (send: () => void) => {
    if (held === undefined) send();
    else held.push(send);
  };
  ctx.afterAnswer(() => {
    const timer = setTimeout(() => {
      const waiting = held ?? [];
      held = undefined;
      for (const send of waiting) send();
    }, 0);
    (timer as { unref?: () => void }).unref?.();
  });
  // A question waits longer, until the client has named the task (task-sightings.ts): it is handled as the task's
  // only once the client holds the task, which a reply merely written does not yet say.
  let unseen: (() => void)[] | undefined = [];
  const whenSeen = (send: () => void) => {
    if (unseen === undefined) whenAnswered(send);
    else unseen.push(send);
  };
  const seen = () => {
    const waiting = unseen ?? [];
    unseen = undefined;
    for (const send of waiting) whenAnswered(send);
  };
  const session = ctx.session;
  const forget = session === undefined ? seen : sightings.watch(session, id, seen);
  return {
    ask(key, request, settled) {
      whenSeen(() => {
        if (!settled.aborted) askClient(key, request, settled);
      });
    },
    // The text: the progress token of the request that made the task stays valid for the task's life.
    progress(done, total, message) {
      const token = ctx.meta?.progressToken;
      if (typeof token !== "string" && typeof token !== "number") return;
      const params: Record<string, unknown> = { progressToken: token, progress: done };
      if (total !== undefined) params.total = total;
      if (message !== undefined) params.message = message;
      whenAnswered(() => ctx.notifyClient("notifications/progress", params));
    },
    status(task) {
      const wire = coreTask(task);
      if (wire.status === told) return;
      told = wire.status as string;
      if (isTerminal(task.status)) forget();
      whenAnswered(() => ctx.notifyClient("notifications/tasks/status", wire));
    },
  };

  function askClient(key: string, request: TaskInputRequest, settled: AbortSignal): void {
    ctx
      .requestClient(request.method, { ...request.params, _meta: relatedMeta(id) }, settled)
      .then(
        (answer) => engine.answerTask(id, { [key]: answer }),
        // The client's JSON-RPC error or malformed result is its answer, on this route as on tasks/result's.
        (error: unknown) => {
          const answer = settled.aborted ? undefined : errorAnswer(error);
          if (answer !== undefined) return engine.answerTask(id, { [key]: answer });
          throw error;
        },
      )
      .catch((error: unknown) => {
        if (settled.aborted) return;
        log({
          level: "info",
          message: `task ${id}: its question ${key} went unanswered on the connection that made it (tasks/result still carries it): ${messageOf(error)}`,
          error,
        });
      });
  }
}
