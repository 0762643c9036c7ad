import { expect, it } from "vitest";
import type { EngineLifecycle, TaskRecord, TaskSignal, TaskStore } from "../engine/engine.js";
import { DEADLINE_MS, eventually, Heard, ODD, type Opener, taskOf } from "./helpers.js";

type Tasks = EngineLifecycle & TaskStore;

/** How long a task store keeps a task (until its TTL), and that it keeps whatever a caller names or sends as it is. */
export function taskKeptCases(open: Opener<Tasks>["open"]): void {
  it(
    "keeps a task until createdAt + ttlMs, never purged before, and not after; null keeps it",
    async () => {
      const engines = await open();
      const [engine] = engines as [Tasks];
      const ttlMs = 1500;
      const task = taskOf({ ttlMs });
      await engine.createTask(task);
      for (const each of engines) {
        const found = await each.loadTask(task.id);
        // Only a load that ended before the expiry must have found it.
        if (Date.now() <= task.createdAt + ttlMs) expect(found).toEqual(task);
      }
      const gone = taskOf({ createdAt: Date.now() - 10_000, ttlMs: 5000 });
      await engine.createTask(gone);
      expect(await engine.loadTask(gone.id)).toBeUndefined();
      const kept = taskOf({ createdAt: Date.now() - 10 * 365 * 86_400_000, ttlMs: null });
      await engine.createTask(kept);
      for (const each of engines) expect(await each.loadTask(kept.id)).toEqual(kept);
      await eventually(async () => {
        for (const each of engines) if ((await each.loadTask(task.id)) !== undefined) return false;
        return true;
      }, `the task past its ${ttlMs} ms TTL to be gone on every engine`);
      expect(Date.now()).toBeGreaterThan(task.createdAt + ttlMs);
      expect(await engine.changeTask(task.id, { kind: "cancel" })).toBeUndefined();
      expect(await engine.loadTask(kept.id)).toEqual(kept);
    },
    DEADLINE_MS + 5000,
  );

  it("keeps hostile ids apart, a 1 MB result exactly, and `__proto__` as a plain key", async () => {
    const engines = await open();
    const [engine] = engines as [Tasks];
    const ids = ["*", "{", ":", "}*", ODD[3] as string, ODD[5] as string, ODD[6] as string, ODD[9] as string];
    const heard = new Heard<TaskSignal>();
    for (const id of ids) await engine.createTask(taskOf({ id, tool: id }));
    await engine.followTask("*", heard.push);
    for (const id of ids) await engine.changeTask(id, { kind: "message", statusMessage: id });
    for (const id of ids) expect(await engine.loadTask(id)).toMatchObject({ id, tool: id, statusMessage: id });
    await heard.until((items) => items.length >= 1, "the change of task `*`");
    await engine.changeTask("*", { kind: "cancel" });
    await heard.until((items) => items.length >= 2, "the cancel of task `*`");
    expect(heard.items.map((s) => s.type === "changed" && s.task.id)).toEqual(["*", "*"]);

    const polluting = JSON.parse('{"__proto__":{"polluted":true},"constructor":{"prototype":1},"content":[]}');
    const task = taskOf({ id: "__proto__" });
    await engine.createTask(task);
    await engine.changeTask("__proto__", {
      kind: "ask",
      key: "__proto__",
      request: { method: "x", params: polluting },
    });
    const asked = await (engines.at(-1) as Tasks).loadTask("__proto__");
    expect(Object.keys(asked?.inputRequests ?? {})).toEqual(["__proto__"]);
    expect(JSON.stringify(asked?.inputRequests)).toBe(
      `{"__proto__":${JSON.stringify({ method: "x", params: polluting })}}`,
    );
    expect(await engine.answerTask("__proto__", JSON.parse('{"__proto__":{"a":1}}'))).toEqual(["__proto__"]);
    const big = { ...polluting, text: 'é\u2028🙂\\"'.repeat(150_000), n: [1.5, -0, 1e21, 2 ** 53 - 1] };
    expect(JSON.stringify(big).length).toBeGreaterThan(1_000_000);
    const followed = new Heard<TaskSignal>();
    await (engines.at(-1) as Tasks).followTask("__proto__", followed.push);
    const done = await engine.changeTask("__proto__", { kind: "complete", result: big });
    for (const each of engines) {
      const loaded = await each.loadTask("__proto__");
      expect(JSON.stringify(loaded?.result)).toBe(JSON.stringify(big));
      expect(loaded).toEqual(done);
    }
    const told = await followed.until((items) => items.length >= 1, "the 1 MB result on the bus");
    expect(JSON.stringify((told[0] as { task: TaskRecord }).task.result)).toBe(JSON.stringify(big));
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
}
