import { createServer, LATEST_STATELESS_VERSION, type LogEntry } from "@toolsmith/core";
import { MetaKey } from "@toolsmith/core/transport";
import { createRedisEngine } from "@toolsmith/redis";
import { expect, it } from "vitest";
import { until, within } from "../../../../scripts/wait.js";
import { createHttpHandler, type HttpHandler } from "../doors/http-handler.js";
import { headers2026, post } from "../exchange/requests.test-util.js";
import { sharedRedis } from "./shared-redis.test-util.js";

// Redis killed while a task runs on A: task requests meanwhile are 503 (none hangs), the handler's progress and
// outcome writes fail without crashing anything, and once Redis is back the task ends clearly on every process.
const LEASE_MS = 300;
const REFUSED_WITHIN_MS = 15_000;
const TASKS = "io.modelcontextprotocol/tasks";
const META = {
  [MetaKey.protocolVersion]: LATEST_STATELESS_VERSION,
  [MetaKey.clientCapabilities]: { extensions: { [TASKS]: {} } },
};

const { redis, engines, handlers } = sharedRedis();

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

function process_(namespace: string, steps: { go: Promise<void>; stepped: () => void }, logged: LogEntry[]) {
  const engine = createRedisEngine({ url: redis.url, namespace, leaseMs: LEASE_MS });
  engines.push(engine);
  const server = createServer({ name: "tasks-outage", version: "1", engine, logger: (entry) => logged.push(entry) });
  server.tool({
    name: "steps",
    description: "Reports progress when let, then ends",
    task: "optional",
    handler: async (_args, ctx) => {
      await steps.go;
      for (let step = 1; step <= 3; step++) ctx.progress(step, 3, `step ${step}`);
      steps.stepped();
      return "all steps done";
    },
  });
  const handle = createHttpHandler(server);
  handlers.push(handle);
  return handle;
}

let ids = 0;
function rpc(handle: HttpHandler, method: string, params: Record<string, unknown>) {
  const name = (method === "tools/call" ? params.name : params.taskId) as string;
  return handle(
    post({ jsonrpc: "2.0", id: ++ids, method, params: { ...params, _meta: META } }, headers2026(method, name)),
  );
}

it("Redis down mid-task: 503 meanwhile, progress and outcome writes fail quietly, then the task ends clearly", async () => {
  const namespace = `tasks-outage-${crypto.randomUUID()}`;
  const go = deferred();
  const stepped = deferred();
  const logged: LogEntry[] = [];
  const steps = { go: go.promise, stepped: stepped.resolve };
  const a = process_(namespace, steps, logged);
  const b = process_(namespace, steps, []);
  const created = (await (await rpc(a, "tools/call", { name: "steps" })).json()) as { result: { taskId: string } };
  const { taskId } = created.result;
  expect((await rpc(b, "tasks/get", { taskId })).status).toBe(200);

  await redis.kill();
  const refusals = await within(
    Promise.all([
      rpc(a, "tasks/get", { taskId }),
      rpc(b, "tasks/get", { taskId }),
      rpc(b, "tasks/update", { taskId, inputResponses: {} }),
      rpc(b, "tasks/cancel", { taskId }),
      rpc(a, "tools/call", { name: "steps" }),
    ]),
    "the task requests made while Redis is down to be refused",
    REFUSED_WITHIN_MS,
  );
  expect(refusals.map((response) => response.status)).toEqual([503, 503, 503, 503, 503]);
  // The handler goes on while Redis is down: its progress and its outcome cannot be kept.
  go.resolve();
  await stepped.promise;
  await until(
    () => logged.some((entry) => /could not keep its outcome/.test(entry.message)),
    "A to say it could not keep the outcome",
    60_000,
  );

  await redis.restart();
  const ended = await until(
    async () => {
      const response = await rpc(b, "tasks/get", { taskId });
      if (response.status !== 200) return undefined;
      const task = ((await response.json()) as { result: Record<string, unknown> }).result;
      return task.status === "working" ? undefined : task;
    },
    "the task to end once Redis is back",
    60_000,
  );
  // Kept once Redis is back: the handler's own outcome, not a failure that blames a process that never stopped.
  expect(ended).toMatchObject({ status: "completed", result: { content: [{ type: "text", text: "all steps done" }] } });
  const onA = ((await (await rpc(a, "tasks/get", { taskId })).json()) as { result: unknown }).result;
  expect(onA).toEqual(ended);
}, 120_000);
