import { z } from "zod";
import type { RequestContext } from "../context/context.js";
import { TASKS_EXTENSION } from "../protocol/tasks.js";

// Shared by the core tests of tasks in both generations (server/core-tasks, tasks, tasks-hostile, tasks-listen): a
// gate, a wait for what a poll sees, and the tools most of them run as tasks.

/** A 2026-07-28 client's capabilities that let a task tool's call become a task (and let it be asked). */
export const WITH_TASKS = { elicitation: {}, extensions: { [TASKS_EXTENSION]: {} } };

/** A promise and what settles it. */
export function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

/** Poll until `ok` holds for what `poll` gives, a turn of the event loop apart; what it gave then. */
export async function until<T>(poll: () => Promise<T>, ok: (value: T) => boolean): Promise<T> {
  for (;;) {
    const value = await poll();
    if (ok(value)) return value;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** `slow`: reports half way, then waits for `gate`, or its cancellation. */
export function slowTool(gate: Promise<void>) {
  return {
    name: "slow",
    description: "Waits for the gate, or its cancellation",
    task: "optional" as const,
    handler: async (_args: Record<string, never>, ctx: RequestContext) => {
      ctx.progress(1, 2, "half way");
      await Promise.race([
        gate,
        new Promise((_, reject) => ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason))),
      ]);
      return "done";
    },
  };
}

/** `confirm`: asks once (`onCall` told each time it runs); `confirmed <answer>`, else `declined`. */
export function confirmTool(onCall: () => void = () => {}) {
  return {
    name: "confirm",
    description: "Asks once",
    task: "optional" as const,
    handler: async (_args: Record<string, never>, ctx: RequestContext) => {
      onCall();
      const answer = await ctx.elicit({ message: "Sure?", schema: { confirm: z.boolean() } });
      return answer.action === "accept" ? `confirmed ${answer.content.confirm}` : "declined";
    },
  };
}
