import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { createServer, ErrorCode } from "@toolsmith/core";
import type { Engine } from "@toolsmith/core/engine";
import { Heard } from "@toolsmith/core/engine-suite";
import { createRedisEngine } from "@toolsmith/redis";
import { afterEach, describe, expect, it } from "vitest";
import { end, track } from "../../../../scripts/child-processes.js";
import { until } from "../../../../scripts/wait.js";
import { createHttpHandler } from "../doors/http-handler.js";
import { sharedRedis } from "./shared-redis.test-util.js";

// A process stalled (SIGSTOP) past its lease while it runs a task or a call: another process claims the work; when the
// stalled one wakes and finishes, it is fenced: it writes nothing for that work, so there is one outcome, the
// claimer's, and it logs that its lease was lost.

const CHILD = fileURLToPath(new URL("../../test/stalled.mjs", import.meta.url));
const BUILT = fileURLToPath(new URL("../../dist/index.js", import.meta.url));
const LEASE_MS = 600;

const { redis, engines, handlers } = sharedRedis();
const children: ChildProcessWithoutNullStreams[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) {
    child.kill("SIGCONT");
    await end(child);
  }
});

/** The stalled process: its stdout lines, heard as they come. */
function stalled(namespace: string, mode: "task" | "request") {
  if (!existsSync(BUILT)) throw new Error(`${BUILT} is not built: npx -y pnpm@12.4.2 run build`);
  const child = track(spawn(process.execPath, [CHILD, redis.url, namespace, String(LEASE_MS), mode]));
  children.push(child);
  const lines = new Heard<string>();
  let rest = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    rest += chunk;
    const parts = rest.split("\n");
    rest = parts.pop() ?? "";
    for (const line of parts) lines.push(line);
  });
  let errors = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    errors += chunk;
  });
  const line = async (pattern: RegExp, what: string) => {
    const found = await lines.until((items) => items.some((item) => pattern.test(item)), what, 60_000);
    return found.find((item) => pattern.test(item)) as string;
  };
  return { child, lines, line, errors: () => errors };
}

describe("a process stalled past its lease writes nothing for the work another claimed", () => {
  it("a task: the claimer's outcome stands; the stalled handler's result is dropped and its lost lease logged", async () => {
    const namespace = `fencing-${crypto.randomUUID()}`;
    // The claimer takes the task but fails it only once the stalled process had its chance to write.
    const claimer = createRedisEngine({ url: redis.url, namespace, leaseMs: LEASE_MS });
    engines.push(claimer);
    await claimer.start({ name: namespace });
    const orphans = new Heard<string>();
    claimer.onOrphanTask(orphans.push);
    const process_ = stalled(namespace, "task");
    const taskId = (await process_.line(/^task /, "the task's id")).slice(5);
    process_.child.kill("SIGSTOP");
    await orphans.until((ids) => ids.includes(taskId), "the claim of the stalled process's task", 60_000);
    process_.child.kill("SIGCONT");
    process_.child.stdin.write("go\n");
    await process_.line(/^acted$/, "the stalled handler to act");
    // Its outcome is either dropped (its lost lease logged) or written (the task then completed: two outcomes).
    let logged = false;
    const completed = until(
      async () => logged || (await claimer.loadTask(taskId))?.status !== "working",
      "a written outcome",
    );
    await Promise.race([process_.line(/lost its lease/, "the stalled process to log its lost lease"), completed]);
    logged = true;
    await completed;
    expect((await claimer.loadTask(taskId))?.status).toBe("working");
    expect(
      process_.lines.items.some((item) => /lost its lease/.test(item)),
      process_.errors(),
    ).toBe(true);
    const error = { code: ErrorCode.InternalError, message: "The server process running this task stopped" };
    expect(await claimer.changeTask(taskId, { kind: "fail", error })).toMatchObject({ status: "failed", error });
  });

  it("a call: its stream keeps one response, the claimer's, which the stalled process also writes live", async () => {
    const namespace = `fencing-${crypto.randomUUID()}`;
    const engine: Engine = createRedisEngine({ url: redis.url, namespace, leaseMs: LEASE_MS });
    engines.push(engine);
    // Another process of the server: it answers the stalled one's call once its lease lapses.
    handlers.push(createHttpHandler(createServer({ name: "stalled", version: "1", engine, logger: () => {} })));
    const process_ = stalled(namespace, "request");
    const session = (await process_.line(/^session /, "the session's id")).slice(8);
    await process_.line(/notifications\/progress/, "the call's progress on its stream");
    const primed = (await process_.line(/^live id: /, "the stream's first event id")).slice(9);
    process_.child.kill("SIGSTOP");
    const responses = async () =>
      ((await engine.replay(session, primed))?.events ?? []).filter((event) => event.data.includes('"id":2,'));
    await until(async () => (await responses()).length > 0, "the claimer's answer to the stalled call");
    process_.child.kill("SIGCONT");
    process_.child.stdin.write("go\n");
    const live = (await process_.line(/^live data: .*"id":2,/, "the stalled process's reply on its live stream")).slice(
      11,
    );
    const kept = await responses();
    expect(kept).toHaveLength(1);
    expect(JSON.parse(kept[0]?.data as string)).toMatchObject({ id: 2, error: { code: ErrorCode.InternalError } });
    expect(JSON.parse(live)).toEqual(JSON.parse(kept[0]?.data as string));
    await process_.line(/taken over by another process/, "the stalled process to log its lost lease");
  });
});
