import type { RequestContextImpl } from "../context/request-context.js";
import type { EngineLifecycle, TaskStore } from "../engine/engine.js";
import { isTerminal } from "../engine/memory-tasks.js";
import { tooDeep, tooDeepText } from "../wire/depth.js";
import { McpError } from "../wire/errors.js";
import { ErrorCode, isPlainObject } from "../wire/json-rpc.js";
import { andThen, type MaybePromise } from "../wire/maybe.js";
import { checkedTaskId, detailedTask, outstandingAnswers, ownTask, taskNotFound } from "./task-wire.js";

// The tasks extension's tasks/get, tasks/update and tasks/cancel (2026-07-28): each answered from the engine on any
// process, for the caller's own tasks only (another's and a missing one alike are "not found").

/** The extension's tasks/* methods. */
export class TaskMethods {
  readonly #engine: () => EngineLifecycle & TaskStore;
  readonly #ready: () => MaybePromise<void>;

  constructor(engine: () => EngineLifecycle & TaskStore, ready: () => MaybePromise<void>) {
    this.#engine = engine;
    this.#ready = ready;
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
}
