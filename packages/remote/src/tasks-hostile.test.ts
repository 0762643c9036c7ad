import { afterEach, describe, expect, it } from "vitest";
import { until } from "../../../scripts/wait.js";
import { caller, ERAS, gateway, text } from "./tasks-peers.test-util.js";
import { rawTaskRemote } from "./tasks-raw-remote.test-util.js";

// A 2025-11-25 remote on node:http whose task answers are garbage: the gateway task gets one clear outcome the
// caller can read, and the gateway lives.

const open: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  for (const item of open.splice(0).reverse()) await item.close();
});

describe.each(ERAS)("a remote task's garbage, for a caller speaking %s", (_name, callerEra) => {
  it("fails the gateway task readably when the remote fails with a code that is no whole number", async () => {
    const remote = await rawTaskRemote({
      get: () => ({ result: { taskId: "t1", status: "failed", createdAt: "", lastUpdatedAt: "", ttl: null } }),
      result: () => ({ error: { code: 1.5, message: "half" } }),
    });
    open.push(remote);
    const link = await gateway(remote.url, "legacy");
    open.push(link);
    const { client, session, errors } = await caller(link.http.url, callerEra);
    open.push(client, session);
    const execution = await session.callTool("job", {}, { task: { preference: "prefer" } });
    expect(execution.kind).toBe("task");
    const { outcome } = await execution.settle();
    // A 2026-07-28 caller's client refused the gateway's tasks/get whole (its schema wants a whole number).
    expect(outcome.status === "failed" && outcome.error.message).toBe("half");
    expect(errors).toEqual([]);
  });

  const garbage: [string, Record<string, unknown>][] = [
    ["a result that is no object", { result: 5 }],
    ["a task in no status the text knows", { result: { taskId: "t1", status: "sleeping" } }],
    ["a task that is a string", { result: { task: "working" } }],
  ];
  it.each(garbage)("fails the gateway task on %s, cancels the remote task, and lives", async (_what, reply) => {
    const remote = await rawTaskRemote({ created: { pollInterval: "soon" }, get: () => reply });
    open.push(remote);
    const link = await gateway(remote.url, "legacy");
    open.push(link);
    const { client, session } = await caller(link.http.url, callerEra);
    open.push(client, session);
    const execution = await session.callTool("job", {}, { task: { preference: "prefer" } });
    expect(execution.kind).toBe("task");
    const { outcome } = await execution.settle();
    expect(outcome.status).toBe("failed");
    await until(() => remote.seen.includes("tasks/cancel"), "the remote task cancelled");
    expect(remote.seen.filter((method) => method === "tasks/get").length).toBeLessThanOrEqual(3);
    expect(text(await client.callTool({ name: "alive", arguments: {} }))).toBe("yes");
  });

  // A failed look (HTTP 502) drops the link: the relay's next look goes on the link's new client (before, it kept the
  // closed one, every later look failed "not connected" and the three-miss tolerance for a blip never helped).
  it("follows the remote task past one failed look (a blip)", async () => {
    const done = {
      result: { task: { taskId: "t1", status: "completed", createdAt: "", lastUpdatedAt: "", ttl: null } },
    };
    const remote = await rawTaskRemote({
      get: (n) => (n === 1 ? { httpStatus: 502 } : done),
      result: () => ({ result: { content: [{ type: "text", text: "after the blip" }] } }),
    });
    open.push(remote);
    const link = await gateway(remote.url, "legacy");
    open.push(link);
    const { client, session } = await caller(link.http.url, callerEra);
    open.push(client, session);
    const execution = await session.callTool("job", {}, { task: { preference: "prefer" } });
    expect(execution.kind).toBe("task");
    const { outcome } = await execution.settle();
    expect(outcome.status).toBe("completed");
  });
});
