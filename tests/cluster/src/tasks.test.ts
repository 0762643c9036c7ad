import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import {
  type ApplicationInputRequest,
  createTaskSessionFromClient,
  resultFromTaskOutcome,
  type TaskEnabledSession,
} from "@modelcontextprotocol/ext-tasks/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RawDispatchTransport } from "../../transports/src/raw-dispatch.js";
import { type Cluster, example, startCluster } from "./cluster.js";

// Build first (npx -y pnpm@12.4.2 run build): three processes of the built issue tracker on one Redis behind the
// round-robin proxy (no affinity), its build_report run as a task by the official ext-tasks client in both
// generations: created on one process, polled, answered, cancelled and read back on the others.

const ELICITATION = { elicitation: { form: {} } };
type Mode = "legacy" | { pin: "2026-07-28" };

let cluster: Cluster;
const clients: Client[] = [];
const sessions: TaskEnabledSession[] = [];

beforeAll(async () => {
  cluster = await startCluster({ script: example("issue-tracker") });
});
afterAll(async () => {
  await Promise.all(sessions.map((session) => session.close()));
  await Promise.all(clients.map((client) => client.close()));
  await cluster?.stop();
});

/** An ext-tasks session over the proxy; its questions answered by `answer` (the publish form). */
async function tasksSession(mode: Mode, asked: ApplicationInputRequest[]): Promise<TaskEnabledSession> {
  const raw = new RawDispatchTransport(new StreamableHTTPClientTransport(new URL(cluster.url)));
  const client = new Client(
    { name: "cluster-tasks", version: "1.0.0" },
    { capabilities: ELICITATION, versionNegotiation: { mode } },
  );
  clients.push(client);
  await client.connect(raw);
  const options = {
    endpointId: "cluster",
    onInputRequest: async (request: ApplicationInputRequest) => {
      asked.push(request);
      return { action: "accept", content: { publish: true } } as never;
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
            clientInfo: { name: "cluster-tasks", version: "1.0.0" },
            clientCapabilities: ELICITATION,
          },
        });
  sessions.push(session);
  return session;
}

describe.each([
  ["2025-11-25 handshake", "legacy"],
  ["2026-07-28", { pin: "2026-07-28" }],
] as [string, Mode][])("tasks across three processes on Redis: %s", (_name, mode) => {
  it("runs build_report as a task: polled and answered on every process, its result read back", async () => {
    const asked: ApplicationInputRequest[] = [];
    const session = await tasksSession(mode, asked);
    const before = cluster.proxy.routed.length;
    const execution = await session.callTool("build_report", { seconds: 0 }, { task: { preference: "prefer" } });
    expect(execution.kind).toBe("task");
    const { outcome } = await execution.settle();
    expect(resultFromTaskOutcome(outcome)).toMatchObject({ structuredContent: { published: true } });
    expect(asked).toEqual([
      expect.objectContaining({
        kind: "elicitation",
        params: expect.objectContaining({ message: expect.any(String) }),
      }),
    ]);
    // The task's requests went round the three processes.
    const backends = new Set(cluster.proxy.routed.slice(before).map((routed) => routed.backend));
    expect(backends.size).toBe(3);
  });

  it("cancels a running task from another process: cancelled everywhere", async () => {
    const session = await tasksSession(mode, []);
    const execution = await session.callTool("build_report", { seconds: 600 }, { task: { preference: "prefer" } });
    expect(execution.kind).toBe("task");
    const taskId = execution.kind === "task" ? execution.handle.taskId : undefined;
    await execution.cancel();
    expect((await execution.settle()).outcome.status).toBe("cancelled");
    for (let i = 0; i < 3 && taskId !== undefined; i++) {
      expect((await session.task(taskId).snapshot()).status).toBe("cancelled");
    }
  });
});

describe("2025-11-25 tasks/result across three processes on Redis", () => {
  it("blocks until the task ends, carrying its question on its own stream, on whichever process serves it", async () => {
    const client = new Client(
      { name: "cluster-tasks-raw", version: "1.0.0" },
      { capabilities: ELICITATION, versionNegotiation: { mode: "legacy" } },
    );
    clients.push(client);
    const asked: unknown[] = [];
    client.setRequestHandler("elicitation/create", async (request) => {
      asked.push(request.params);
      return { action: "accept", content: { publish: false } };
    });
    await client.connect(new StreamableHTTPClientTransport(new URL(cluster.url)));
    const anyResult = {
      "~standard": { version: 1, vendor: "test", validate: (value: unknown) => ({ value }) },
    } as const;
    const created = (await client.request(
      { method: "tools/call", params: { name: "build_report", arguments: { seconds: 0 }, task: { ttl: 60_000 } } },
      anyResult,
    )) as { task: { taskId: string; ttl: number } };
    expect(created.task.ttl).toBe(60_000);
    const { taskId } = created.task;
    const result = await client.request({ method: "tasks/result", params: { taskId } }, anyResult);
    expect(result).toMatchObject({
      structuredContent: { published: false },
      _meta: { "io.modelcontextprotocol/related-task": { taskId } },
    });
    // Asked on the connection that made the task and on tasks/result: answered once or twice, never left waiting.
    expect(asked.length).toBeGreaterThan(0);
    const listed = (await client.request({ method: "tasks/list", params: {} }, anyResult)) as { tasks: unknown[] };
    expect(listed.tasks).toContainEqual(expect.objectContaining({ taskId, status: "completed" }));
  });
});
