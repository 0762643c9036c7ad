// A process that starts a request and is then killed (SIGKILL) by the test that spawned it: its lease lapses.
import { createRedisEngine } from "../dist/index.js";

const [url, namespace, session, leaseMs] = process.argv.slice(2);
const engine = createRedisEngine({ url, namespace, leaseMs: Number(leaseMs) });
await engine.start({ name: namespace });
await engine.running({ session, request: '"left-1"', stream: "post-1" });
await engine.running({ session, request: "2", stream: "post-2" });
await engine.finished(session, "2");
process.stdout.write(`running ${engine.node}\n`);
// Kept alive until killed (the engine's own timer does not hold the process).
setInterval(() => {}, 60_000);
