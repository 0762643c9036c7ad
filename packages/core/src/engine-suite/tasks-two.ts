import { describe, expect, it } from "vitest";
import type { EngineLifecycle, TaskSignal, TaskStore } from "../engine/engine.js";
import { Heard, type Opener, taskOf } from "./helpers.js";

// What a lapsed lease may take to be noticed: the engine's lease time, its wait after connecting, and its check.
const ORPHAN_DEADLINE_MS = 30_000;

type Tasks = EngineLifecycle & TaskStore;

/** What task stores of one server do together, as processes would (skipped when `make` gives one engine). */
export function tasksAcrossProcessesCases({ open, two }: Opener<Tasks>): void {
  describe("tasks across processes", () => {
    it("keeps at most perCaller tasks per caller over every engine: full past it, others apart, a purged one frees", async () => {
      const engines = await open();
      const [first, last] = [engines[0] as Tasks, engines.at(-1) as Tasks];
      const limit = (caller: string) => ({ max: 100, perCaller: 2, caller });
      // The caller is the limit's key, not the task's owner: two anonymous addresses are two callers.
      for (const caller of ["subject ada", "address 127.0.0.1"]) {
        expect(await first.createTask(taskOf({ owner: undefined }), limit(caller))).toBe("created");
        expect(await last.createTask(taskOf({ owner: undefined, ttlMs: null }), limit(caller))).toBe("created");
        const over = taskOf({ owner: undefined });
        expect(await last.createTask(over, limit(caller))).toBe("full-for-caller");
        expect(await first.loadTask(over.id)).toBeUndefined();
      }
      // Another caller's bucket is its own; a task made without a limit counts for none.
      expect(await last.createTask(taskOf({ owner: undefined }), limit("address 127.0.0.2"))).toBe("created");
      expect(await first.createTask(taskOf({ owner: undefined }), limit("subject bob"))).toBe("created");
      expect(await first.createTask(taskOf({ owner: undefined }))).toBe("created");
      // A task past its TTL is purged and frees its place.
      const past = taskOf({ owner: "cy", createdAt: Date.now() - 10_000, ttlMs: 5000 });
      expect(await first.createTask(past, limit("subject cy"))).toBe("created");
      expect(await last.createTask(taskOf({ owner: "cy" }), limit("subject cy"))).toBe("created");
      expect(await first.createTask(taskOf({ owner: "cy" }), limit("subject cy"))).toBe("created");
      expect(await last.createTask(taskOf({ owner: "cy" }), limit("subject cy"))).toBe("full-for-caller");
    });

    it("keeps at most max tasks in all over every engine, whoever the callers: full past it, a purged one frees", async () => {
      const engines = await open();
      const [first, last] = [engines[0] as Tasks, engines.at(-1) as Tasks];
      // Many callers (addresses), each well under its own bound: the bound in all still holds.
      const limit = (n: number) => ({ max: 3, perCaller: 2, caller: `address 10.0.0.${n}` });
      const past = taskOf({ owner: undefined, createdAt: Date.now() - 10_000, ttlMs: 5000 });
      expect(await first.createTask(past, limit(1))).toBe("created");
      expect(await last.createTask(taskOf({ owner: undefined }), limit(2))).toBe("created");
      expect(await first.createTask(taskOf({ owner: undefined, ttlMs: null }), limit(3))).toBe("created");
      // The one past its TTL is purged and frees its place; then the store is full for every caller, new ones too.
      expect(await last.createTask(taskOf({ owner: undefined }), limit(4))).toBe("created");
      for (const [engine, n] of [
        [first, 5],
        [last, 6],
        [last, 2],
      ] as const) {
        const over = taskOf({ owner: undefined });
        expect(await engine.createTask(over, limit(n))).toBe("full");
        expect(await first.loadTask(over.id)).toBeUndefined();
        expect(await last.loadTask(over.id)).toBeUndefined();
      }
      // A caller at its own bound is told so first; a task made without a limit counts for none (the server's own).
      expect(await first.createTask(taskOf({ owner: undefined }), limit(2))).toBe("full");
      expect(await first.createTask(taskOf({ owner: undefined }), { ...limit(2), perCaller: 1 })).toBe(
        "full-for-caller",
      );
      expect(await last.createTask(taskOf({ owner: undefined }))).toBe("created");
      expect(await last.createTask(taskOf({ owner: undefined }), limit(7))).toBe("full");
    });

    it("gives a task its process left running to exactly one other process, once, unless finished or ended", {
      timeout: ORPHAN_DEADLINE_MS + 10_000,
    }, async (ctx) => {
      const engines = await two(ctx);
      const [owner, ...others] = engines as [Tasks, ...Tasks[]];
      const orphans = new Heard<{ node: string; id: string }>();
      for (const engine of others) engine.onOrphanTask((id) => orphans.push({ node: engine.node, id }));
      const [left, asking, finished, ended, never] = [0, 1, 2, 3, 4].map(() => taskOf({ node: owner.node }));
      for (const task of [left, asking, finished, ended, never]) await owner.createTask(task!);
      for (const task of [left, asking, finished, ended]) await owner.taskRunning(task!.id);
      await owner.changeTask(asking!.id, { kind: "ask", key: "elicit-1", request: { method: "x", params: {} } });
      await owner.taskFinished(finished!.id);
      await owner.changeTask(ended!.id, { kind: "complete", result: { content: [] } });
      await owner.close();
      const heard = await orphans.until((items) => items.length >= 2, "the two orphaned tasks", ORPHAN_DEADLINE_MS);
      expect(heard.map((o) => o.id).sort()).toEqual([left!.id, asking!.id].sort());
      // The survivor fails one; its signal comes after any second hearing of a claim made in the same tick.
      const survivor = others[0] as Tasks;
      const changed = new Heard<TaskSignal>();
      await survivor.followTask(left!.id, changed.push);
      const error = { code: -32603, message: "The server process running this task stopped before it finished" };
      await survivor.changeTask(left!.id, { kind: "fail", error });
      await changed.until((items) => items.length >= 1, "the failed task's signal");
      expect(await survivor.loadTask(left!.id)).toMatchObject({ status: "failed", error });
      expect(orphans.items).toHaveLength(2);
      expect(new Set(orphans.items.map((o) => o.id)).size).toBe(2);
    });
  });
}
