import type { TaskId } from "@modelcontextprotocol/ext-tasks/core";
import { afterEach, describe, expect, it } from "vitest";
import { end } from "../../../scripts/child-processes.js";
import { spawnHttp } from "../../../scripts/spawn-http.js";
import { until, WAIT_MS } from "../../../scripts/wait.js";
import { caller, ERAS, gateway, REMOTE, text } from "./tasks-peers.test-util.js";

// A task call the gateway refuses once the remote made its task (core's per-caller bound is counted when the gateway
// makes its own, after the remote's): the remote task must not be left running for nobody.

const open: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  for (const item of open.splice(0).reverse()) await item.close();
});

describe.each(ERAS)("a gateway that refuses a caller's second task, linked in the %s era", (_name, linkEra) => {
  it.each(ERAS)("cancels the remote task it made for a caller speaking %s", async (_callerName, callerEra) => {
    const remote = await spawnHttp([REMOTE]);
    try {
      const link = await gateway(remote.url, linkEra, { maxPerCaller: 1 });
      open.push(link);
      const { client, session } = await caller(link.http.url, callerEra);
      open.push(client, session);
      const seen = async (key: string) =>
        JSON.parse(text(await client.callTool({ name: "seen", arguments: { key } })) ?? "{}");
      const first = crypto.randomUUID();
      const kept = await session.callTool("forever", { key: first }, { task: { preference: "prefer" } });
      expect(kept.kind).toBe("task");
      const second = crypto.randomUUID();
      const refused = await session.callTool("forever", { key: second }, { task: { preference: "prefer" } }).then(
        () => "made",
        (error: Error) => error.message,
      );
      expect(refused).toMatch(/Too many tasks running for one caller/);
      expect((await seen(second)).started).toBe(true);
      await until(async () => (await seen(second)).stopped, "the refused call's remote task stopped", WAIT_MS, 50);
      expect((await seen(first)).stopped).toBe(false);
      // The kept task ended before its session closes (ext-tasks 0.2.2 leaves an unhandled rejection otherwise).
      const taskId = kept.kind === "task" ? kept.handle.taskId : ("" as TaskId);
      await session.task(taskId).cancel();
      expect((await kept.settle()).outcome.status).toBe("cancelled");
    } finally {
      await end(remote.child);
    }
  });
});
