// A process that starts a request (and, given a task id, a task) and is then killed (SIGKILL) by the test that spawned
// it: its lease lapses.
import { createRedisEngine } from "../dist/index.js";

const [url, namespace, session, leaseMs, task] = process.argv.slice(2);
const engine = createRedisEngine({ url, namespace, leaseMs: Number(leaseMs) });
await engine.start({ name: namespace });
await engine.running({ session, request: '"left-1"', stream: "post-1" });
await engine.running({ session, request: "2", stream: "post-2" });
await engine.finished(session, "2");
if (task !== undefined) {
  const now = Date.now();
  const record = { node: engine.node, tool: "report", status: "working", createdAt: now, lastUpdatedAt: now };
  const kept = { ...record, owner: "user-1", ttlMs: 3_600_000, pollIntervalMs: 1000, inputRequests: {} };
  for (const id of [task, `${task}-done`]) {
    await engine.createTask({ ...kept, id });
    await engine.taskRunning(id);
  }
  await engine.taskFinished(`${task}-done`);
}
process.stdout.write(`running ${engine.node}\n`);
// Kept alive until killed (the engine's own timer does not hold the process).
setInterval(() => {}, 60_000);
