import { resultFromTaskOutcome } from "@modelcontextprotocol/ext-tasks/client";
import type { TaskId } from "@modelcontextprotocol/ext-tasks/core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { end } from "../../../scripts/child-processes.js";
import { type SpawnedHttp, spawnHttp } from "../../../scripts/spawn-http.js";
import { until } from "../../../scripts/wait.js";
import { type Caller, caller, ERAS, type Gateway, gateway, REMOTE, text } from "./tasks-peers.test-util.js";

// Tasks relayed through the gateway: a Toolsmith remote over HTTP whose tools run as tasks (tasks-remote.test-util.mjs,
// a process of its own), the gateway linked to it in either era, and the caller the official client with the
// official ext-tasks session in either era (2025-11-25's tasks, or the 2026-07-28 extension). Needs the build.

const open: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  for (const item of open.splice(0).reverse()) await item.close();
});

describe.each(ERAS)("the gateway linked to the remote in the %s era", (_name, linkEra) => {
  let remote: SpawnedHttp;
  let link: Gateway;

  beforeAll(async () => {
    remote = await spawnHttp([REMOTE]);
    link = await gateway(remote.url, linkEra);
  });

  afterAll(async () => {
    await link?.close();
    if (remote) await end(remote.child);
  });

  describe.each(ERAS)("the caller speaking %s", (_callerName, callerEra) => {
    async function connected(): Promise<Caller> {
      const made = await caller(link.http.url, callerEra);
      open.push(made.client, made.session);
      return made;
    }

    it("runs a tool the remote runs only as a task, as a task, and relays its result", async () => {
      const { session, errors } = await connected();
      const execution = await session.callTool("double", { n: 21 }, { task: { preference: "prefer" } });
      expect(execution.kind).toBe("task");
      const { outcome } = await execution.settle();
      expect(outcome.status).toBe("completed");
      expect(text(resultFromTaskOutcome(outcome))).toBe("42");
      expect(errors).toEqual([]);
    });

    // A 2026-07-28 remote lists no task support: the gateway lists every tool of it as able to run a task, and a
    // 2025-11-25 caller that asks for one is answered one (its text), the remote's result its outcome.
    const listedAsTask = linkEra !== "legacy" && callerEra === "legacy";
    it(`answers ${listedAsTask ? "as a task" : "at once"} a tool the remote runs at once, for a caller asking a task`, async () => {
      const { session, errors } = await connected();
      const execution = await session.callTool("seen", { key: "none" }, { task: { preference: "prefer" } });
      expect(execution.kind === "task").toBe(listedAsTask);
      const { outcome } = await execution.settle();
      expect(JSON.parse(text(resultFromTaskOutcome(outcome)) ?? "")).toEqual({ started: false, stopped: false });
      expect(errors).toEqual([]);
    });

    it("puts the remote task's question to the caller as the gateway task's, and the answer back", async () => {
      const { session, asked, errors } = await connected();
      const execution = await session.callTool("confirm", {}, { task: { preference: "prefer" } });
      expect(execution.kind).toBe("task");
      const { outcome } = await execution.settle();
      expect(text(resultFromTaskOutcome(outcome))).toBe("Hello, Ada!");
      expect(asked).toEqual([
        expect.objectContaining({ scope: "task", params: expect.objectContaining({ message: "What is your name?" }) }),
      ]);
      expect(errors).toEqual([]);
    });

    it("asks the request what the remote asks before it makes its task, then relays the task", async () => {
      const { session, asked, errors } = await connected();
      const execution = await session.callTool("intro", {}, { task: { preference: "prefer" } });
      expect(execution.kind).toBe("task");
      const { outcome } = await execution.settle();
      expect(text(resultFromTaskOutcome(outcome))).toBe("Hi, Ada");
      expect(asked).toEqual([
        expect.objectContaining({ params: expect.objectContaining({ message: "Who are you?" }) }),
      ]);
      expect(errors).toEqual([]);
    });

    it("cancels the remote task when the gateway task is cancelled", async () => {
      const { client, session, errors } = await connected();
      const key = crypto.randomUUID();
      const seen = async () => JSON.parse(text(await client.callTool({ name: "seen", arguments: { key } })) ?? "{}");
      const execution = await session.callTool("forever", { key }, { task: { preference: "prefer" } });
      expect(execution.kind).toBe("task");
      await until(async () => (await seen()).started, "the remote task started");
      // Cancelled by its id (tasks/cancel), and followed to its end: the execution's own cancel() ends its driver
      // locally, which ext-tasks 0.2.2 may leave as an unhandled rejection when a look at the task is under way.
      const taskId = execution.kind === "task" ? execution.handle.taskId : ("" as TaskId);
      await session.task(taskId).cancel();
      await until(async () => (await seen()).stopped, "the remote task stopped");
      expect((await execution.settle()).outcome.status).toBe("cancelled");
      expect(errors).toEqual([]);
    });

    if (callerEra !== "legacy") {
      it("refuses a task-only tool called without a task as the remote does (-32021)", async () => {
        const { client } = await connected();
        const refused = await client.callTool({ name: "double", arguments: { n: 1 } }).then(
          () => undefined,
          (error: { code?: number }) => error.code,
        );
        expect(refused).toBe(-32021);
      });
    }

    it("fails the gateway task when the remote loses its task (its TTL passed)", async () => {
      const { session } = await connected();
      const execution = await session.callTool("expiring", {}, { task: { preference: "prefer" } });
      expect(execution.kind).toBe("task");
      const { outcome } = await execution.settle();
      expect(outcome.status === "failed" && outcome.error.message).toMatch(
        /^remote http:\S+ lost task \S+: .*Task not found/,
      );
    });

    it("keeps plain forwarding for a call that asks for no task", async () => {
      const { client } = await connected();
      const result = await client.callTool({ name: "seen", arguments: { key: "none" } });
      expect(JSON.parse(text(result) ?? "")).toEqual({ started: false, stopped: false });
    });
  });
});

describe.each(ERAS)("a remote killed mid-task, linked in the %s era", (_name, linkEra) => {
  it.each(ERAS)("fails the gateway task of a caller speaking %s; the gateway lives", async (_callerName, callerEra) => {
    const remote = await spawnHttp([REMOTE]);
    try {
      const link = await gateway(remote.url, linkEra);
      open.push(link);
      const { client, session } = await caller(link.http.url, callerEra);
      open.push(client, session);
      const key = crypto.randomUUID();
      const execution = await session.callTool("forever", { key }, { task: { preference: "prefer" } });
      expect(execution.kind).toBe("task");
      await until(
        async () =>
          JSON.parse(text(await client.callTool({ name: "seen", arguments: { key } })) ?? "{}").started === true,
        "the remote task started",
      );
      await end(remote.child);
      const { outcome } = await execution.settle();
      expect(outcome.status).toBe("failed");
      expect(outcome.status === "failed" && outcome.error.message).toMatch(/remote/);
      expect(text(await client.callTool({ name: "alive", arguments: {} }))).toBe("yes");
    } finally {
      await end(remote.child);
    }
  });
});

describe.each(ERAS)("a gateway task whose TTL passes, linked in the %s era", (_name, linkEra) => {
  it("stops following the remote task and cancels it", async () => {
    const remote = await spawnHttp([REMOTE]);
    try {
      const link = await gateway(remote.url, linkEra, { ttlMs: 500 });
      open.push(link);
      const { client, session } = await caller(link.http.url, { pin: "2026-07-28" });
      open.push(client, session);
      const key = crypto.randomUUID();
      const seen = async () => JSON.parse(text(await client.callTool({ name: "seen", arguments: { key } })) ?? "{}");
      const execution = await session.callTool("forever", { key }, { task: { preference: "prefer" } });
      expect(execution.kind).toBe("task");
      await until(async () => (await seen()).stopped, "the remote task stopped when the gateway task's TTL passed");
    } finally {
      await end(remote.child);
    }
  });
});
