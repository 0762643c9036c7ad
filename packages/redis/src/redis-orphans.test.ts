import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Engine, RunningRequest } from "@toolsmith/core/engine";
import { Heard, ROOMY, recordOf } from "@toolsmith/core/engine-suite";
import { expect, it } from "vitest";
import { exited, track } from "../../../scripts/child-processes.js";
import { within } from "../../../scripts/wait.js";
import { useRedis } from "./redis.test-util.js";
import { createRedisEngine } from "./redis-engine.js";

const at = useRedis({}, "all");

// A process killed with SIGKILL mid-request: once its lease lapses, exactly one other process hears the request.
const CHILD = fileURLToPath(new URL("../test/kept-running.mjs", import.meta.url));
const BUILT = fileURLToPath(new URL("../dist/index.js", import.meta.url));
const LEASE_MS = 600;
// The lease, a tick to notice it, on a slow shared machine.
const ORPHAN_DEADLINE_MS = 30_000;

it("gives a killed process's running request to exactly one other process, once", async () => {
  if (!existsSync(BUILT)) throw new Error(`${BUILT} is not built: npx -y pnpm@12.4.2 run build`);
  const namespace = `orphans-${crypto.randomUUID()}`;
  const others = [0, 1, 2].map(() => createRedisEngine({ url: at.redis.url, namespace, leaseMs: LEASE_MS }));
  at.engines.push(...others);
  const orphans = new Heard<{ node: string; request: RunningRequest }>();
  for (const engine of others) {
    await engine.start({ name: namespace });
    engine.onOrphan((request) => orphans.push({ node: engine.node, request }));
  }
  const { id } = recordOf();
  await others[0]!.createSession(recordOf({ id }), ROOMY);

  const child = track(
    spawn(process.execPath, [CHILD, at.redis.url, namespace, id, String(LEASE_MS)], {
      stdio: ["ignore", "pipe", "pipe"],
    }),
  );
  let said = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    said += chunk;
  });
  const node = await within(
    new Promise<string>((resolve, reject) => {
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
        said += chunk;
        const found = /running (\S+)\n/.exec(said)?.[1];
        if (found) resolve(found);
      });
      child.once("exit", (code) => reject(new Error(`the child exited (${code}) before running: ${said}`)));
    }),
    "the child to say it runs a request",
  );
  expect(await at.raw.hkeys(`ts:{${namespace}}:run:${node}`)).toHaveLength(1);
  child.kill("SIGKILL");
  await exited(child, "the killed child's exit");

  const heard = await orphans.until((items) => items.length >= 1, "the orphaned request", ORPHAN_DEADLINE_MS);
  expect(heard[0]?.request).toEqual({ session: id, request: '"left-1"', stream: "post-1" });
  // Taken in the same script that answered it: nothing is left for any process to hear a second time.
  expect(await at.raw.exists(`ts:{${namespace}}:run:${node}`)).toBe(0);
  expect(await at.raw.sismember(`ts:{${namespace}}:nodes`, node)).toBe(0);
  expect(orphans.items).toHaveLength(1);
});

it(
  "gives a killed process's running task to exactly one other process, once (not one it finished)",
  async () => {
    if (!existsSync(BUILT)) throw new Error(`${BUILT} is not built: npx -y pnpm@12.4.2 run build`);
    const namespace = `task-orphans-${crypto.randomUUID()}`;
    const others = [0, 1, 2].map(() => createRedisEngine({ url: at.redis.url, namespace, leaseMs: LEASE_MS }));
    at.engines.push(...others);
    const orphans = new Heard<{ node: string; id: string }>();
    const requests = new Heard<RunningRequest>();
    for (const engine of others) {
      await engine.start({ name: namespace });
      engine.onOrphanTask((id) => orphans.push({ node: engine.node, id }));
      engine.onOrphan((request) => requests.push(request));
    }
    const task = `task-${crypto.randomUUID()}`;
    const child = track(
      spawn(process.execPath, [CHILD, at.redis.url, namespace, "s-1", String(LEASE_MS), task], {
        stdio: ["ignore", "pipe", "pipe"],
      }),
    );
    let said = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      said += chunk;
    });
    const node = await within(
      new Promise<string>((resolve, reject) => {
        child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
          said += chunk;
          const found = /running (\S+)\n/.exec(said)?.[1];
          if (found) resolve(found);
        });
        child.once("exit", (code) => reject(new Error(`the child exited (${code}) before running: ${said}`)));
      }),
      "the child to say it runs a task",
    );
    expect(await at.raw.smembers(`ts:{${namespace}}:rt:${node}`)).toEqual([task]);
    child.kill("SIGKILL");
    await exited(child, "the killed child's exit");

    const heard = await orphans.until((items) => items.length >= 1, "the orphaned task", ORPHAN_DEADLINE_MS);
    // Its request went in the same claim: the node is then forgotten.
    expect(requests.items.map((request) => request.request)).toEqual(['"left-1"']);
    expect(heard[0]?.id).toBe(task);
    // Claimed in the script that answered it: nothing is left for any process to hear a second time.
    expect(await at.raw.exists(`ts:{${namespace}}:rt:${node}`)).toBe(0);
    expect(await at.raw.sismember(`ts:{${namespace}}:nodes`, node)).toBe(0);
    const survivor = others.find((engine) => engine.node === heard[0]?.node) as Engine;
    expect(await survivor.loadTask(task)).toMatchObject({ status: "working", node });
    expect(orphans.items).toHaveLength(1);
  },
  ORPHAN_DEADLINE_MS + 10_000,
);
