import type { Engine } from "@toolsmith/core/engine";
import { ROOMY, recordOf, taskOf } from "@toolsmith/core/engine-suite";
import { expect, it } from "vitest";
import { useRedis } from "./redis.test-util.js";
import { createRedisEngine } from "./redis-engine.js";

const at = useRedis({}, "all");

// What Redis lost (the last second of writes before a crash, with fsync every second) or let lapse (a lease, while
// Redis was down) is no claim: the process still running the work keeps it, and an answer for it is kept for it.
// Long leases, so that no tick renews or claims anything meanwhile: the test removes the keys itself.
const LEASE_MS = 60_000;

async function two(): Promise<{ runner: Engine; other: Engine; key: (name: string) => string }> {
  const namespace = `lapsed-${crypto.randomUUID()}`;
  const [runner, other] = [0, 1].map(() => createRedisEngine({ url: at.redis.url, namespace, leaseMs: LEASE_MS }));
  at.engines.push(runner as Engine, other as Engine);
  await runner?.start({ name: namespace });
  await other?.start({ name: namespace });
  return { runner: runner as Engine, other: other as Engine, key: (name) => `ts:{${namespace}}:${name}` };
}

it("keeps an answer for a process whose lease lapsed (not only a live one) until it takes it", async () => {
  const { runner, other, key } = await two();
  const { id } = recordOf();
  await runner.createSession(recordOf({ id }), ROOMY);
  await at.raw.del(key(`node:${runner.node}`));
  const line = `{"jsonrpc":"2.0","id":"${runner.node}-1-0","result":{"action":"accept"}}`;
  await other.signal(id, { type: "client", line, from: other.node, to: runner.node });
  // Kept a while only (a name no process has costs that much): a minute at most.
  const ttl = await at.raw.pttl(key(`in:${runner.node}`));
  expect(ttl).toBeGreaterThan(0);
  expect(ttl).toBeLessThanOrEqual(60_000);
  expect(await runner.takeClientLines()).toEqual([{ session: id, line }]);
});

it("keeps at most 256 lines a minute for names without a live lease, however many names a client makes up", async () => {
  const { runner, other, key } = await two();
  const { id } = recordOf();
  await runner.createSession(recordOf({ id }), ROOMY);
  const line = (node: string) =>
    `{"jsonrpc":"2.0","id":"${node}-1-0","result":{"action":"accept","pad":"${"x".repeat(1000)}"}}`;
  for (let i = 0; i < 300; i++) {
    const made = `made-up-${i}`;
    await other.signal(id, { type: "client", line: line(made), from: other.node, to: made });
  }
  let kept = 0;
  for (const inbox of await at.raw.keys(key("in:*"))) kept += await at.raw.llen(inbox);
  expect(kept).toBe(256);
  // A live process's own answers are not counted against made-up names: they are kept still.
  await other.signal(id, { type: "client", line: line(runner.node), from: other.node, to: runner.node });
  expect(await runner.takeClientLines()).toEqual([{ session: id, line: line(runner.node) }]);
});

it("writes a running request's events and a running task's changes when Redis lost their entries and the lease", async () => {
  const { runner, other, key } = await two();
  const { id } = recordOf();
  await runner.createSession(recordOf({ id }), ROOMY);
  const first = await runner.append(id, "post-1", "");
  await runner.running({ session: id, request: "3", stream: "post-1" });
  const task = taskOf({ node: runner.node });
  await runner.createTask(task);
  await runner.taskRunning(task.id);
  await at.raw.del(key(`node:${runner.node}`), key(`run:${runner.node}`), key(`rt:${runner.node}`), key("nodes"));
  await runner.append(id, "post-1", '{"jsonrpc":"2.0","id":3,"result":{}}', { running: "3" });
  expect((await other.replay(id, first.id))?.events.map((event) => event.data)).toEqual([
    '{"jsonrpc":"2.0","id":3,"result":{}}',
  ]);
  const done = await runner.changeTask(task.id, { kind: "complete", result: { content: [] } }, { running: true });
  expect(done?.status).toBe("completed");
});
