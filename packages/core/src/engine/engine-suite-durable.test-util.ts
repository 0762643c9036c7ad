import { describe, expect, it } from "vitest";
import { type Engine, isLeaseLost } from "./engine.js";
import { type Opener, ROOMY, recordOf } from "./engine-suite-helpers.test-util.js";
import { taskOf } from "./engine-suite-tasks.test-util.js";

// What the engine acknowledged reaches the process it concerns even when a signal is missed (kept until taken), and
// what a process no longer holds (its lease gone) it cannot write: each piece of work has one outcome.

// The client lines an engine keeps for one process from one session until it takes them (the oldest first).
const MAX_CLIENT_LINES_PER_SESSION = 16;

const ASK = { method: "elicitation/create", params: { message: "Go on?" } };

/** Expect `write` to be refused as a lost lease. */
async function refused(write: () => unknown): Promise<void> {
  let thrown: unknown;
  try {
    await write();
  } catch (error) {
    thrown = error;
  }
  expect(isLeaseLost(thrown), `refused as a lost lease, not ${String(thrown)}`).toBe(true);
}

/** Durable answers and fenced writes, on one engine and across two. */
export function engineSuiteDurable({ open, two }: Opener): void {
  describe("durable answers and fenced writes", () => {
    it("keeps each answer answerTask took for takeAnswers, each taken once, dropped when the task ends", async () => {
      const engines = await open();
      const [runner, other] = [engines[0] as Engine, engines.at(-1) as Engine];
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
      const [runner, other] = (await two(ctx)) as [Engine, Engine];
      const task = taskOf({ node: runner.node });
      await runner.createTask(task);
      await refused(() => runner.changeTask(task.id, { kind: "message", statusMessage: "early" }, { running: true }));
      await runner.taskRunning(task.id);
      const asked = await runner.changeTask(task.id, { kind: "ask", key: "k", request: ASK }, { running: true });
      expect(asked?.status).toBe("input_required");
      // Another process does not run it.
      await refused(() => other.changeTask(task.id, { kind: "complete", result: { content: [] } }, { running: true }));
      await runner.taskFinished(task.id);
      await refused(() => runner.changeTask(task.id, { kind: "complete", result: { content: [] } }, { running: true }));
      expect(await other.loadTask(task.id)).toMatchObject({ status: "input_required" });
      // Unfenced changes (a cancellation, an orphan's failure) need no lease; an unknown task is still undefined.
      expect(await other.changeTask(task.id, { kind: "cancel" })).toMatchObject({ status: "cancelled" });
      expect(await runner.changeTask(crypto.randomUUID(), { kind: "cancel" }, { running: true })).toBeUndefined();
    });

    it("appends a running request's event only while this process runs it: refused, nothing kept, otherwise", async (ctx) => {
      const [runner, other] = (await two(ctx)) as [Engine, Engine];
      const { id } = recordOf();
      await runner.createSession(recordOf({ id }), ROOMY);
      const request = '"r-1"';
      const first = await runner.append(id, "post-1", "", undefined);
      await runner.running({ session: id, request, stream: "post-1" });
      await runner.append(id, "post-1", '{"progress":1}', { running: request });
      await refused(() => other.append(id, "post-1", '{"other":1}', { running: request }));
      await runner.finished(id, request);
      await refused(() => runner.append(id, "post-1", '{"late":1}', { running: request }));
      const replayed = await other.replay(id, first.id);
      expect(replayed?.events.map((event) => event.data)).toEqual(['{"progress":1}']);
    });

    it("keeps a client's cancellation with its session for the process running the request: taken once, bounded", async () => {
      const engines = await open();
      const [runner, other] = [engines[0] as Engine, engines.at(-1) as Engine];
      const [{ id }, { id: stranger }] = [recordOf(), recordOf()];
      await runner.createSession(recordOf({ id }), ROOMY);
      await runner.createSession(recordOf({ id: stranger }), ROOMY);
      const cancel = (request: string) =>
        `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":${request}}}`;
      await other.signal(id, { type: "client", line: cancel("7"), from: other.node, cancels: "7" });
      await other.signal(id, { type: "client", line: cancel('"s"'), from: other.node, cancels: '"s"' });
      // Another session's request of the same id, and a request not asked about, find nothing.
      const asked = [
        { session: stranger, request: "7" },
        { session: id, request: "8" },
        { session: id, request: "7" },
        { session: id, request: '"s"' },
      ];
      expect(await runner.takeCancels(asked)).toEqual([
        { session: id, request: "7", line: cancel("7") },
        { session: id, request: '"s"', line: cancel('"s"') },
      ]);
      expect(await runner.takeCancels(asked)).toEqual([]);
      expect(await runner.takeCancels([])).toEqual([]);
      // The newest 64 per session: a client flooding its own session pushes out its own oldest alone.
      for (let n = 0; n < 70; n++) {
        await other.signal(id, { type: "client", line: cancel(String(n)), from: other.node, cancels: String(n) });
      }
      await other.signal(stranger, { type: "client", line: cancel("1"), from: other.node, cancels: "1" });
      const all = Array.from({ length: 70 }, (_, n) => ({ session: id, request: String(n) }));
      const taken = await runner.takeCancels([...all, { session: stranger, request: "1" }]);
      expect(taken.map((one) => `${one.session === id ? "" : "x"}${one.request}`)).toEqual([
        ...all.slice(6).map((one) => one.request),
        "x1",
      ]);
      // None kept for a session that ended (or never was).
      await other.signal(id, { type: "client", line: cancel("9"), from: other.node, cancels: "9" });
      await runner.deleteSession(id);
      await other.signal(id, { type: "client", line: cancel("10"), from: other.node, cancels: "10" });
      expect(
        await runner.takeCancels([
          { session: id, request: "9" },
          { session: id, request: "10" },
        ]),
      ).toEqual([]);
    });

    it("keeps a few client lines per session for a process: one session's flood pushes out no other's answer", async () => {
      const engines = await open();
      const [asker, other] = [engines[0] as Engine, engines.at(-1) as Engine];
      const [{ id: victim }, { id: flooder }] = [recordOf(), recordOf()];
      await asker.createSession(recordOf({ id: victim }), ROOMY);
      await asker.createSession(recordOf({ id: flooder }), ROOMY);
      const line = (n: number) => `{"jsonrpc":"2.0","id":"${asker.node}-1-${n}","result":{}}`;
      await other.signal(victim, { type: "client", line: line(1), from: other.node, to: asker.node });
      for (let n = 0; n < 300; n++) {
        await other.signal(flooder, { type: "client", line: line(n), from: other.node, to: asker.node });
      }
      const taken = await asker.takeClientLines();
      expect(taken[0]).toEqual({ session: victim, line: line(1) });
      expect(taken.length).toBe(1 + MAX_CLIENT_LINES_PER_SESSION);
      // Taking them makes room again.
      await other.signal(flooder, { type: "client", line: line(301), from: other.node, to: asker.node });
      expect(await asker.takeClientLines()).toEqual([{ session: flooder, line: line(301) }]);
    });

    it("keeps a client line addressed to a process for it alone, taken once, oldest first", async (ctx) => {
      const [asker, other] = (await two(ctx)) as [Engine, Engine];
      const { id } = recordOf();
      await asker.createSession(recordOf({ id }), ROOMY);
      const lines = ['{"jsonrpc":"2.0","id":"a-1-1","result":{}}', '{"jsonrpc":"2.0","id":"a-1-2","result":{}}'];
      for (const line of lines) await other.signal(id, { type: "client", line, from: other.node, to: asker.node });
      // Without `to` (a cancellation), nothing is kept.
      const cancel = '{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}';
      await other.signal(id, { type: "client", line: cancel, from: other.node });
      expect(await other.takeClientLines()).toEqual([]);
      expect(await asker.takeClientLines()).toEqual(lines.map((line) => ({ session: id, line })));
      expect(await asker.takeClientLines()).toEqual([]);
    });
  });
}
