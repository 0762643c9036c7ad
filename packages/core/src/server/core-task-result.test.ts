import { describe, expect, it } from "vitest";
import { createMemoryEngine } from "../engine/memory.js";
import { countFollows } from "../engine-suite/helpers.js";
import { LATEST_HANDSHAKE_VERSION } from "../protocol/versions.js";
import { createTestClient, type TestClient } from "../testing/client.js";
import { rpcError } from "../testing/expect-errors.test-util.js";
import { deferred, slowTool, until } from "../testing/task-setup.test-util.js";
import { MAX_WAITING_RESULTS } from "./core-task-methods.js";
import { createServer } from "./server.js";

// 2025-11-25's tasks/result blocks until its task ends, following the task meanwhile: how many one session may have
// waiting, and that each lets go of its follow when it is cancelled or its connection closes.

function resultServer() {
  const counted = countFollows(createMemoryEngine());
  const server = createServer({ name: "results", version: "1", engine: counted.engine });
  const gate = deferred();
  server.tool(slowTool(gate.promise));
  return { server, gate, live: counted.live };
}

async function slowTask(c: TestClient): Promise<string> {
  const created = await c.request("tools/call", { name: "slow", arguments: {}, task: {} });
  return (created.task as { taskId: string }).taskId;
}

const V1 = { protocolVersion: LATEST_HANDSHAKE_VERSION } as const;

describe("2025-11-25 tasks/result waiting", () => {
  it(`is bounded to ${MAX_WAITING_RESULTS} a session (-32000 beyond), and all let go when the connection closes`, async () => {
    const { server, gate, live } = resultServer();
    const c = await createTestClient(server, V1);
    const other = await createTestClient(server, V1);
    const taskId = await slowTask(c);
    const theirs = await slowTask(other);
    // Each running task follows itself.
    await until(
      async () => live(),
      (n) => n === 2,
    );
    const waiting = Array.from({ length: MAX_WAITING_RESULTS }, () =>
      c.request("tasks/result", { taskId }).catch((error: unknown) => error),
    );
    await until(
      async () => live(),
      (n) => n === 2 + MAX_WAITING_RESULTS,
    );
    const refused = await rpcError(c.request("tasks/result", { taskId }));
    expect(refused.code).toBe(-32000);
    expect(refused.message).toBe(
      `Too many tasks/result requests waiting in this session (at most ${MAX_WAITING_RESULTS}); wait for one to end, or poll tasks/get`,
    );
    // Another session's count is its own.
    const its = other.request("tasks/result", { taskId: theirs });
    await until(
      async () => live(),
      (n) => n === 3 + MAX_WAITING_RESULTS,
    );
    c.close();
    await until(
      async () => live(),
      (n) => n === 3,
    );
    for (const error of await Promise.all(waiting)) expect(error).toBeInstanceOf(Error);
    gate.resolve();
    expect(await its).toMatchObject({ content: [{ type: "text", text: "done" }] });
    // Both tasks ended (the closed connection's ran on to its end): nothing follows anything.
    await until(
      async () => live(),
      (n) => n === 0,
    );
    other.close();
  });

  it("lets go of its follow when the request is cancelled, and the session may wait again", async () => {
    const { server, gate, live } = resultServer();
    const c = await createTestClient(server, V1);
    const taskId = await slowTask(c);
    await until(
      async () => live(),
      (n) => n === 1,
    );
    const cancel = new AbortController();
    const cancelled = c.request("tasks/result", { taskId }, { signal: cancel.signal }).catch((error: Error) => error);
    await until(
      async () => live(),
      (n) => n === 2,
    );
    cancel.abort();
    expect(await cancelled).toMatchObject({ name: "AbortError" });
    await until(
      async () => live(),
      (n) => n === 1,
    );
    const again = c.request("tasks/result", { taskId });
    gate.resolve();
    expect(await again).toMatchObject({ content: [{ type: "text", text: "done" }] });
    await until(
      async () => live(),
      (n) => n === 0,
    );
    c.close();
  });
});
