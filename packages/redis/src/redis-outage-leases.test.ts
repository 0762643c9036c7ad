import { createServer, type Server, Socket } from "node:net";
import type { Engine, RunningRequest } from "@toolsmith/core/engine";
import { ROOMY, recordOf, taskOf } from "@toolsmith/core/engine-suite";
import { Redis } from "ioredis";
import { afterAll, beforeAll, expect, it } from "vitest";
import { until } from "../../../scripts/wait.js";
import { createRedisEngine } from "./redis-engine.js";
import { type RedisServer, startRedis } from "./testing/redis-server.js";

// Redis down longer than a lease, then back: a process that lives keeps its running requests, even when another
// process reaches Redis again a moment before it does (its lease key lapsed while Redis was away).
const LEASE_MS = 300;

let redis: RedisServer;
let gate: Server;
let gateOpen = true;
const sockets = new Set<Socket>();
const engines: Engine[] = [];

beforeAll(async () => {
  // Each write on disk before Redis answers it: what B wrote just before the kill must be there after the restart
  // (with everysec, a kill within the second lost B's rt: entry once in CI, and the test is about leases, not fsync).
  redis = await startRedis({ args: ["--appendfsync", "always"] });
  // B reaches Redis through this gate: closed, it refuses connections (B is cut off while Redis is back).
  gate = createServer((client) => {
    if (!gateOpen) {
      client.destroy();
      return;
    }
    const upstream = new Socket();
    sockets.add(client).add(upstream);
    const done = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    upstream.connect(redis.port, "127.0.0.1");
    client.pipe(upstream).pipe(client);
    client.on("error", done).on("close", done);
    upstream.on("error", done).on("close", done);
  });
  await new Promise<void>((resolve) => gate.listen(0, "127.0.0.1", resolve));
});
afterAll(async () => {
  await Promise.all(engines.map((engine) => engine.close()));
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => gate.close(resolve));
  await redis.stop();
});

it("a living process's running request and task are not orphaned when Redis comes back after more than a lease", async () => {
  const namespace = `outage-${crypto.randomUUID()}`;
  const port = (gate.address() as { port: number }).port;
  const a = createRedisEngine({ url: redis.url, namespace, leaseMs: LEASE_MS });
  const b = createRedisEngine({ url: `redis://127.0.0.1:${port}`, namespace, leaseMs: LEASE_MS });
  engines.push(a, b);
  await a.start({ name: namespace });
  await b.start({ name: namespace });
  const orphans: RunningRequest[] = [];
  a.onOrphan((request) => orphans.push(request));
  const taskOrphans: string[] = [];
  a.onOrphanTask((task) => taskOrphans.push(task));
  const { id } = recordOf();
  await a.createSession(recordOf({ id }), ROOMY);
  await b.running({ session: id, request: '"kept"', stream: `${b.node}-1` });
  const task = taskOf({ node: b.node, ttlMs: null });
  await b.createTask(task);
  await b.taskRunning(task.id);

  await redis.kill();
  const down = Date.now();
  // B's lease lapses while Redis is away (a lease is time: nothing but the clock says so).
  await until(() => Date.now() - down > 2 * LEASE_MS, "B's lease to lapse while Redis is down");
  gateOpen = false;
  for (const socket of sockets) socket.destroy();
  await redis.restart();
  const raw = new Redis(redis.url, { protocol: 2 });
  try {
    // A is back (its lease renewed in the script that would claim B's requests), B not yet.
    await until(async () => (await raw.exists(`ts:{${namespace}}:node:${a.node}`)) === 1, "A's lease renewed");
    gateOpen = true;
    await until(async () => (await raw.exists(`ts:{${namespace}}:node:${b.node}`)) === 1, "B's lease renewed");
    expect(orphans).toEqual([]);
    expect(taskOrphans).toEqual([]);
    expect(await raw.smembers(`ts:{${namespace}}:rt:${b.node}`)).toEqual([task.id]);
    expect(await raw.hkeys(`ts:{${namespace}}:run:${b.node}`)).toEqual([JSON.stringify([id, '"kept"'])]);
  } finally {
    raw.disconnect();
  }
}, 60_000);
