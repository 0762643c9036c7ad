import { describe, expect, it } from "vitest";
import type { EngineLifecycle, TaskStore } from "../engine/engine.js";
import { expectLeaseLost, type Opener, taskOf } from "./helpers.js";

// What the engine acknowledged reaches the process running the task even when a signal is missed (kept until taken),
// and what a process no longer holds (its lease gone) it cannot write: each task has one outcome.

const ASK = { method: "elicitation/create", params: { message: "Go on?" } };

type Tasks = EngineLifecycle & TaskStore;

/** A task's kept answers and its fenced changes, on one engine and across two. */
export function taskDurableCases({ open, two }: Opener<Tasks>): void {
  describe("durable answers and fenced writes", () => {
    it("keeps each answer answerTask took for takeAnswers, each taken once, dropped when the task ends", async () => {
      const engines = await open();
      const [runner, other] = [engines[0] as Tasks, engines.at(-1) as Tasks];
      const task = taskOf({ node: runner.node });
      await runner.createTask(task);
      await runner.taskRunning(task.id);
      for (const key of ["elicit-1", "elicit-2", "__proto__"]) {
        await runner.changeTask(task.id, { kind: "ask", key, request: ASK }, { running: true });
      }
      expect(await runner.takeAnswers(task.id)).toMatchObject({ answers: {} });
      expect(await other.answerTask(task.id, { "elicit-1": { action: "accept" }, never: 1 })).toEqual(["elicit-1"]);
      expect(await other.answerTask(task.id, JSON.parse('{"__proto__":{"x":1}}'))).toEqual(["__proto__"]);
      const taken = await runner.takeAnswers(task.id);
      expect(taken?.task.status).toBe("input_required");
      expect(Object.keys(taken?.task.inputRequests ?? {})).toEqual(["elicit-2"]);
      expect(Object.entries(taken?.answers ?? {}).sort()).toEqual([
        ["__proto__", { x: 1 }],
        ["elicit-1", { action: "accept" }],
      ]);
      expect((await other.takeAnswers(task.id))?.answers).toEqual({});
      await other.answerTask(task.id, { "elicit-2": { action: "decline" } });
      await other.changeTask(task.id, { kind: "cancel" });
      expect(await runner.takeAnswers(task.id)).toMatchObject({ task: { status: "cancelled" }, answers: {} });
      expect(await runner.takeAnswers(crypto.randomUUID())).toBeUndefined();
    });

    it("makes a running task change only while this process runs the task: refused, nothing written, otherwise", async (ctx) => {
      const [runner, other] = (await two(ctx)) as [Tasks, Tasks];
      const task = taskOf({ node: runner.node });
      await runner.createTask(task);
      await expectLeaseLost(() =>
        runner.changeTask(task.id, { kind: "message", statusMessage: "early" }, { running: true }),
      );
      await runner.taskRunning(task.id);
      const asked = await runner.changeTask(task.id, { kind: "ask", key: "k", request: ASK }, { running: true });
      expect(asked?.status).toBe("input_required");
      // Another process does not run it.
      await expectLeaseLost(() =>
        other.changeTask(task.id, { kind: "complete", result: { content: [] } }, { running: true }),
      );
      await runner.taskFinished(task.id);
      await expectLeaseLost(() =>
        runner.changeTask(task.id, { kind: "complete", result: { content: [] } }, { running: true }),
      );
      expect(await other.loadTask(task.id)).toMatchObject({ status: "input_required" });
      // Unfenced changes (a cancellation, an orphan's failure) need no lease; an unknown task is still undefined.
      expect(await other.changeTask(task.id, { kind: "cancel" })).toMatchObject({ status: "cancelled" });
      expect(await runner.changeTask(crypto.randomUUID(), { kind: "cancel" }, { running: true })).toBeUndefined();
    });
  });
}
