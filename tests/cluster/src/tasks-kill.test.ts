import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createTaskSessionFromClient, type TaskEnabledSession } from "@modelcontextprotocol/ext-tasks/client";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { until, within } from "../../../scripts/wait.js";
import { RawDispatchTransport } from "../../transports/src/raw-dispatch.js";
import { type Cluster, example, startCluster, steerTo } from "./cluster.js";
import type { Mode } from "./peer.js";

// Build first (npx -y pnpm@12.4.2 run build): three processes of the built issue tracker on one Redis behind the
// round-robin proxy; the process running a task is killed (kill -9) while the task works or waits for its answer.
// A process left claims the running set the dead one's lease held and fails the task; the official ext-tasks
// client, polling it on the processes left, sees it end, in both generations. The ext-tasks session reads the tool
// declarations (tools/list) before its first call: that request is made before the kill is aimed, or the process
// killed may be the one that answered it, and the task, still running elsewhere, rightly stays working.

const ELICITATION = { elicitation: { form: {} } };
const LEASE_MS = 1000;
// The dead lease lapses in LEASE_MS and a survivor's tick claims it about as soon: this bound is generous, and a
// task left working for ever fails the test here rather than after the client's own time-out.
const FAILED_WITHIN_MS = 60_000;
const ORPHAN_MESSAGE = "The server process running this task stopped before it finished";
// tasks/result and tasks/list as the client sends any request (its codecs know neither).
const ANY_RESULT = { "~standard": { version: 1, vendor: "test", validate: (value: unknown) => ({ value }) } } as const;
// The process each case kills (and starts again after).
const VICTIM = 0;

let cluster: Cluster;
// Whether the victim is down (started again after each case).
let killed = false;
const clients: Client[] = [];
const sessions: TaskEnabledSession[] = [];
// The questions the client is asked are held (left open) until the end: the task stays input_required.
let release = () => {};
const released = new Promise<void>((resolve) => {
  release = resolve;
});

beforeAll(async () => {
  cluster = await startCluster({ script: example("issue-tracker"), env: { TOOLSMITH_LEASE_MS: String(LEASE_MS) } });
});
afterEach(async () => {
  if (killed) await cluster.restart(VICTIM);
  killed = false;
});
afterAll(async () => {
  release();
  await Promise.all(sessions.map((session) => session.close()));
  await Promise.all(clients.map((client) => client.close()));
  await cluster?.stop();
});

/** An ext-tasks session over the proxy, its tool declarations already read (its callTool then sends one POST). */
async function tasksSession(mode: Mode): Promise<{ client: Client; session: TaskEnabledSession }> {
  const raw = new RawDispatchTransport(new StreamableHTTPClientTransport(new URL(cluster.url)));
  const client = new Client(
    { name: "tasks-kill", version: "1.0.0" },
    { capabilities: ELICITATION, versionNegotiation: { mode } },
  );
  clients.push(client);
  await client.connect(raw);
  // Held, never answered before the end: the task waits for it.
  client.setRequestHandler("elicitation/create", async () => {
    await released;
    return { action: "decline" };
  });
  // 2026-07-28: the execution follows its task and takes each question to this hook, held the same way.
  const options = {
    endpointId: "cluster",
    onInputRequest: async () => {
      await released;
      return { action: "decline" } as never;
    },
  };
  const session =
    mode === "legacy"
      ? createTaskSessionFromClient(client, options)
      : createTaskSessionFromClient(client, {
          ...options,
          rawDispatch: raw.dispatch,
          v2RequestFraming: {
            protocolVersion: "2026-07-28",
            clientInfo: { name: "tasks-kill", version: "1.0.0" },
            clientCapabilities: ELICITATION,
          },
        });
  sessions.push(session);
  // A first call reads the declarations (tools/list); list_issues is no task.
  const first = await session.callTool("list_issues", {});
  expect(first.kind).toBe("immediate");
  return { client, session };
}

describe.each([
  ["2025-11-25 handshake", "legacy"],
  ["2026-07-28", { pin: "2026-07-28" }],
] as [string, Mode][])("a task's process killed (kill -9): %s", (_name, mode) => {
  it.each([
    // Still in its slow part when killed.
    ["working", 600],
    // Past it, asking whether to publish (the question held open).
    ["input_required", 0],
  ] as const)("a task %s when its process is killed ends failed on the processes left", async (state, seconds) => {
    const { client, session } = await tasksSession(mode);
    await steerTo(cluster, client, mode, VICTIM);
    const before = cluster.proxy.routed.length;
    const execution = await session.callTool("build_report", { seconds }, { task: { preference: "prefer" } });
    if (execution.kind !== "task") throw new Error(`build_report was not run as a task: ${execution.kind}`);
    // The tools/call went to the victim, so its task runs there. It is the first POST since `before`: the 2026-07-28
    // execution starts following its task as soon as the reply comes, so its first tasks/get (no Mcp-Method header)
    // may reach the proxy before this test reads `routed` on a loaded machine (CI31 saw it go to process 1).
    const posts = cluster.proxy.routed.slice(before).filter((routed) => routed.method === "POST");
    expect(posts[0]).toEqual(expect.objectContaining({ backend: VICTIM }));
    const { taskId } = execution.handle;
    const task = session.task(taskId);
    const seen: string[] = [];
    const look = async () => {
      const { status } = await task.snapshot();
      if (seen.at(-1) !== status) seen.push(status);
      return status;
    };
    // Looked at as a client without a stream would (2026-07-28 sends no status notification for a question).
    await until(async () => (await look()) === state, `the task ${state} before the kill`, 30_000, 100);
    // 2025-11-25: a tasks/result waiting on a process that stays, answered once the task ends.
    let outcome: Promise<unknown> | undefined;
    if (mode === "legacy") {
      await steerTo(cluster, client, mode, VICTIM + 1);
      outcome = client.request({ method: "tasks/result", params: { taskId } }, ANY_RESULT).then(
        () => "a result",
        (error: unknown) => error,
      );
    }
    // A working task followed to its end by the client itself (a question would go to its held hook).
    const settled = state === "working" ? execution.settle() : undefined;
    killed = true;
    await cluster.kill(VICTIM);
    // Polled likewise, with a bound: a task left working for ever fails the test here.
    await until(
      async () => (await look()) === "failed",
      `the task failed after its process was killed (statuses seen: ${seen.join(", ")})`,
      FAILED_WITHIN_MS,
      200,
    );
    expect(seen.slice(-2)).toEqual([state, "failed"]);
    expect(await task.snapshot()).toMatchObject({ status: "failed", statusMessage: ORPHAN_MESSAGE });
    if (settled !== undefined) {
      const { outcome: ended } = await within(settled, "the client's settle()", FAILED_WITHIN_MS);
      expect(ended.status).toBe("failed");
    }
    if (outcome !== undefined) {
      expect(await within(outcome, "the answer to tasks/result", FAILED_WITHIN_MS)).toMatchObject({
        code: -32603,
        message: expect.stringContaining(ORPHAN_MESSAGE),
      });
      const listed = (await client.request({ method: "tasks/list", params: {} }, ANY_RESULT)) as { tasks: unknown[] };
      expect(listed.tasks).toContainEqual(
        expect.objectContaining({ taskId, status: "failed", statusMessage: ORPHAN_MESSAGE }),
      );
    }
  });
});
