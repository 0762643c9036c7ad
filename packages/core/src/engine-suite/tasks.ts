import { describe, expect, it } from "vitest";
import type { EngineLifecycle, TaskChange, TaskRecord, TaskSignal, TaskStore } from "../engine/engine.js";
import { Heard, type MakeEngines, type Opener, openerOf, TEST_TIMEOUT_MS, taskOf } from "./helpers.js";
import { taskDurableCases } from "./tasks-durable.js";
import { taskKeptCases } from "./tasks-kept.js";
import { tasksAcrossProcessesCases } from "./tasks-two.js";

const ASK = { method: "elicitation/create", params: { message: "Go on?", requestedSchema: { type: "object" } } };

/** What a follower heard, shortly: each signal's type and key or status. */
function shortly(signals: readonly TaskSignal[]): string[] {
  return signals.map((s) => (s.type === "answer" ? `answer ${s.key}=${JSON.stringify(s.value)}` : s.task.status));
}

/** Follow `id` on every engine; a `message` change marks the end: wait until every follower heard it. */
async function followAll(engines: readonly Tasks[], id: string) {
  const heard = engines.map(() => new Heard<TaskSignal>());
  for (const [i, engine] of engines.entries()) await engine.followTask(id, (heard[i] as Heard<TaskSignal>).push);
  return {
    heard,
    async flush(by: Tasks): Promise<void> {
      const mark = `mark-${crypto.randomUUID()}`;
      await by.changeTask(id, { kind: "message", statusMessage: mark });
      for (const follower of heard) {
        await follower.until(
          (items) => items.some((s) => s.type === "changed" && s.task.statusMessage === mark),
          `the marker ${mark}`,
        );
      }
    },
  };
}

type Tasks = EngineLifecycle & TaskStore;

/**
 * What every `TaskStore` keeps of a task, its answers, signals and lease, on one process and across them (the tests
 * that need two processes skip with one engine).
 */
export function taskStoreSuite(name: string, make: MakeEngines<Tasks>): void {
  describe(`task store suite: ${name}`, { timeout: TEST_TIMEOUT_MS }, () => {
    const opener = openerOf(make);
    taskCases(opener);
    tasksAcrossProcessesCases(opener);
    taskDurableCases(opener);
  });
}

/** What a task store keeps of a task, on one process and across them. */
function taskCases({ open }: Opener<Tasks>): void {
  describe("tasks", () => {
    it("keeps a task as given: durable when createTask returns, loaded on every engine", async () => {
      const engines = await open();
      const task = taskOf({ owner: undefined, statusMessage: "starting", ttlMs: null });
      await (engines[0] as Tasks).createTask(task);
      for (const engine of engines) expect(await engine.loadTask(task.id)).toEqual(task);
      const asked = taskOf({ status: "input_required", inputRequests: { "elicit-1": ASK } });
      await (engines.at(-1) as Tasks).createTask(asked);
      for (const engine of engines) expect(await engine.loadTask(asked.id)).toEqual(asked);
      await expect(async () => (engines[0] as Tasks).createTask(task)).rejects.toThrow(/already exists/);
      // A handshake-era task's generation and session never change, through every change.
      const bound = taskOf({ owner: undefined, era: "handshake", session: "s-1" });
      await (engines[0] as Tasks).createTask(bound);
      await (engines[0] as Tasks).changeTask(bound.id, { kind: "message", statusMessage: "1/2" });
      for (const engine of engines) {
        expect(await engine.loadTask(bound.id)).toMatchObject({
          era: "handshake",
          session: "s-1",
          statusMessage: "1/2",
        });
      }
    });

    it("keeps a task as it was given, whatever the caller does to its objects afterwards", async () => {
      const engines = await open();
      const [engine] = engines as [Tasks];
      const task = taskOf();
      const given = structuredClone(task) as { -readonly [K in keyof TaskRecord]: TaskRecord[K] };
      await engine.createTask(given);
      given.status = "failed";
      const heard = new Heard<TaskSignal>();
      await (engines.at(-1) as Tasks).followTask(task.id, heard.push);
      const request = { method: "elicitation/create", params: { message: "Go on?" } };
      await engine.changeTask(task.id, { kind: "ask", key: "elicit-1", request });
      (request.params as Record<string, unknown>).message = "changed";
      const answer = { action: "accept", content: { ok: true } };
      await engine.answerTask(task.id, { "elicit-1": answer });
      answer.action = "decline";
      const result = { content: [{ type: "text", text: "done" }] };
      await engine.changeTask(task.id, { kind: "complete", result });
      result.content.push({ type: "text", text: "more" });
      await heard.until((items) => items.length >= 4, "the ask, the answer, its change and the completion");
      expect(heard.items[1]).toEqual({
        type: "answer",
        key: "elicit-1",
        value: { action: "accept", content: { ok: true } },
      });
      expect((heard.items[0] as { task: TaskRecord }).task.inputRequests).toEqual({
        "elicit-1": { method: "elicitation/create", params: { message: "Go on?" } },
      });
      for (const each of engines) {
        expect(await each.loadTask(task.id)).toMatchObject({
          status: "completed",
          result: { content: [{ type: "text", text: "done" }] },
        });
      }
    });

    it("answers undefined or nothing for a task that never was", async () => {
      const [engine] = (await open()) as [Tasks];
      expect(await engine.loadTask("never")).toBeUndefined();
      expect(await engine.changeTask("never", { kind: "cancel" })).toBeUndefined();
      expect(await engine.answerTask("never", { "elicit-1": {} })).toEqual([]);
    });

    it("applies each change kind, stamping lastUpdatedAt, and signals each", async () => {
      const engines = await open();
      const [engine] = engines as [Tasks];
      const task = taskOf({ createdAt: 1000, lastUpdatedAt: 1000, ttlMs: null });
      await engine.createTask(task);
      const { heard } = await followAll(engines, task.id);
      const change = async (c: TaskChange) => (engines.at(-1) as Tasks).changeTask(task.id, c);
      const moved = await change({ kind: "message", statusMessage: "1/3" });
      expect(moved).toEqual({ ...task, statusMessage: "1/3", lastUpdatedAt: moved?.lastUpdatedAt });
      expect(moved?.lastUpdatedAt).toBeGreaterThan(1000);
      expect(await change({ kind: "ask", key: "elicit-1", request: ASK })).toMatchObject({
        status: "input_required",
        inputRequests: { "elicit-1": ASK },
      });
      await change({ kind: "ask", key: "sample-2", request: { method: "sampling/createMessage", params: {} } });
      expect(await change({ kind: "unask", key: "elicit-1" })).toMatchObject({ status: "input_required" });
      expect(Object.keys((await engine.loadTask(task.id))?.inputRequests ?? {})).toEqual(["sample-2"]);
      expect(await change({ kind: "unask", key: "sample-2" })).toMatchObject({ status: "working", inputRequests: {} });
      await change({ kind: "ask", key: "elicit-3", request: ASK });
      const done = await change({ kind: "complete", result: { content: [], isError: false } });
      expect(done).toEqual({
        ...task,
        status: "completed",
        statusMessage: "1/3",
        inputRequests: {},
        result: { content: [], isError: false },
        lastUpdatedAt: done?.lastUpdatedAt,
      });
      for (const engine of engines) expect(await engine.loadTask(task.id)).toEqual(done);
      for (const follower of heard) {
        await follower.until((items) => items.length >= 7, "seven `changed`");
        expect(shortly(follower.items)).toEqual([
          "working",
          "input_required",
          "input_required",
          "input_required",
          "working",
          "input_required",
          "completed",
        ]);
        expect(follower.items.at(-1)).toEqual({ type: "changed", task: done });
      }
      const failed = taskOf({ inputRequests: { "elicit-1": ASK }, status: "input_required" });
      await engine.createTask(failed);
      const error = { code: -32603, message: "stopped", data: { why: ["x"] } };
      expect(await engine.changeTask(failed.id, { kind: "fail", error, statusMessage: "stopped" })).toMatchObject({
        status: "failed",
        statusMessage: "stopped",
        inputRequests: {},
        error,
      });
      const cancelled = taskOf({ inputRequests: { "elicit-1": ASK }, status: "input_required" });
      await engine.createTask(cancelled);
      const after = await engine.changeTask(cancelled.id, { kind: "cancel" });
      expect(after).toMatchObject({ status: "cancelled", inputRequests: {} });
      expect(after).not.toHaveProperty("statusMessage");
    });

    it("never moves a terminal task: every change and answer is ignored, and nothing is signalled", async () => {
      const engines = await open();
      const [engine] = engines as [Tasks];
      const ends: TaskChange[] = [
        { kind: "complete", result: { content: [{ type: "text", text: "done" }] } },
        { kind: "fail", error: { code: -32603, message: "no" } },
        { kind: "cancel", statusMessage: "by the client" },
      ];
      const live = taskOf();
      await engine.createTask(live);
      for (const end of ends) {
        const task = taskOf({ status: "input_required", inputRequests: { "elicit-1": ASK } });
        await engine.createTask(task);
        const ended = (await engine.changeTask(task.id, end)) as TaskRecord;
        const heard = new Heard<TaskSignal>();
        for (const each of engines) {
          await each.followTask(task.id, heard.push);
          await each.followTask(live.id, heard.push);
        }
        for (const change of [
          ...ends,
          { kind: "ask", key: "k", request: ASK },
          { kind: "message", statusMessage: "x" },
        ]) {
          expect(await (engines.at(-1) as Tasks).changeTask(task.id, change as TaskChange)).toEqual(ended);
        }
        expect(await engine.answerTask(task.id, { "elicit-1": { action: "accept" } })).toEqual([]);
        expect(await engine.loadTask(task.id)).toEqual(ended);
        // Signals of one engine arrive in order: once the live task's change is heard, the ignored ones would have been.
        await engine.changeTask(live.id, { kind: "message", statusMessage: end.kind });
        await heard.until((items) => items.length >= engines.length, "the live task's change");
        expect(heard.items.map((s) => s.type === "changed" && s.task.id)).toEqual(engines.map(() => live.id));
      }
    });

    it("takes only outstanding answers, signals each then `changed`, to every follower once and in order", async () => {
      const engines = await open();
      const task = taskOf();
      await (engines[0] as Tasks).createTask(task);
      for (const key of ["elicit-1", "elicit-2", "roots-3"]) {
        await (engines[0] as Tasks).changeTask(task.id, { kind: "ask", key, request: ASK });
      }
      const { heard, flush } = await followAll(engines, task.id);
      const answering = engines.at(-1) as Tasks;
      const taken = await answering.answerTask(task.id, { nope: 1, "elicit-2": { action: "accept" }, toString: 2 });
      expect(taken).toEqual(["elicit-2"]);
      expect(await answering.loadTask(task.id)).toMatchObject({ status: "input_required" });
      expect(await answering.answerTask(task.id, { "elicit-2": "again" })).toEqual([]);
      expect(await answering.answerTask(task.id, { "roots-3": null, "elicit-1": [1, "é"] })).toEqual([
        "roots-3",
        "elicit-1",
      ]);
      const now = await (engines[0] as Tasks).loadTask(task.id);
      expect(now).toMatchObject({ status: "working", inputRequests: {} });
      await flush(engines[0] as Tasks);
      for (const follower of heard) {
        expect(shortly(follower.items)).toEqual([
          'answer elicit-2={"action":"accept"}',
          "input_required",
          "answer roots-3=null",
          'answer elicit-1=[1,"é"]',
          "working",
          "working",
        ]);
        expect(follower.items[4]).toEqual({ type: "changed", task: now });
      }
    });

    taskKeptCases(open);
  });
}
