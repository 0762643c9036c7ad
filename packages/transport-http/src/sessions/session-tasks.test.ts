import { createServer, LATEST_HANDSHAKE_VERSION } from "@toolsmith/core";
import { createMemoryEngine } from "@toolsmith/core/engine";
import { countFollows, untilLive } from "@toolsmith/core/engine-suite";
import { describe, expect, it } from "vitest";
import { createHttpHandler } from "../doors/http-handler.js";
import { H, openSession, post, replyOf, URL_ } from "../exchange/requests.test-util.js";

// A 2025-11-25 task made without a principal is its session's. Ending the session (DELETE) does not end the task:
// the text gives a task its TTL from creation and binds it to an authorization context, not to a session, so a task
// left running for its effect finishes; no other session can reach it.

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

function inSession(session: string): Record<string, string> {
  return { ...H, "mcp-session-id": session, "mcp-protocol-version": LATEST_HANDSHAKE_VERSION };
}

describe("a 2025-11-25 task when its session ends", () => {
  it("runs to its end after the session's DELETE, and no other session reaches it", async () => {
    const gate = deferred();
    const ended = deferred<{ aborted: boolean }>();
    const server = createServer({ name: "session-tasks", version: "1" });
    server.tool({
      name: "import",
      description: "Imports once the gate opens",
      task: "optional",
      handler: async (_args, ctx) => {
        // A cancellation (the session's end ending its tasks) would show here as aborted.
        await Promise.race([
          gate.promise,
          new Promise<void>((resolve) => ctx.signal.addEventListener("abort", () => resolve(), { once: true })),
        ]);
        ended.resolve({ aborted: ctx.signal.aborted });
        return "imported";
      },
    });
    const handle = createHttpHandler(server);
    const first = await openSession(handle);
    const call = { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "import", task: { ttl: 60_000 } } };
    const created = (await replyOf(await handle(post(call, inSession(first))))) as {
      result: { task: { taskId: string; status: string } };
    };
    expect(created.result.task.status).toBe("working");
    const { taskId } = created.result.task;
    const deleted = await handle(new Request(URL_, { method: "DELETE", headers: { "mcp-session-id": first } }));
    expect(deleted.status).toBe(204);
    const completed = deferred();
    await server.engine.followTask(taskId, (signal) => {
      if (signal.type === "changed" && signal.task.status === "completed") completed.resolve();
    });
    gate.resolve();
    expect(await ended.promise).toEqual({ aborted: false });
    await completed.promise;
    const second = await openSession(handle);
    const get = { jsonrpc: "2.0", id: 3, method: "tasks/get", params: { taskId } };
    expect(await replyOf(await handle(post(get, inSession(second))))).toMatchObject({
      error: { code: -32602, message: "Failed to retrieve task: Task not found" },
    });
    const list = { jsonrpc: "2.0", id: 4, method: "tasks/list", params: {} };
    expect(await replyOf(await handle(post(list, inSession(second))))).toMatchObject({ result: { tasks: [] } });
    // Kept, completed, as its session's until its TTL passes.
    expect(await server.engine.loadTask(taskId)).toMatchObject({ status: "completed", session: first });
  });

  it("lets go of its waiting tasks/result (each follows its task) when the session's DELETE ends it", async () => {
    const counted = countFollows(createMemoryEngine());
    const server = createServer({ name: "session-tasks", version: "1", engine: counted.engine });
    server.tool({
      name: "forever",
      description: "Runs until cancelled",
      task: "required",
      handler: (_args, ctx) =>
        new Promise<never>((_, reject) => ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason))),
    });
    const handle = createHttpHandler(server);
    const session = await openSession(handle);
    const call = { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "forever", task: {} } };
    const created = (await replyOf(await handle(post(call, inSession(session))))) as {
      result: { task: { taskId: string } };
    };
    const { taskId } = created.result.task;
    await untilLive(counted.live, 1);
    const waiting = [3, 4].map((id) =>
      handle(post({ jsonrpc: "2.0", id, method: "tasks/result", params: { taskId } }, inSession(session))),
    );
    await untilLive(counted.live, 3);
    const deleted = await handle(new Request(URL_, { method: "DELETE", headers: { "mcp-session-id": session } }));
    expect(deleted.status).toBe(204);
    // Only the task's own follow is left: it runs on after its session (see above).
    await untilLive(counted.live, 1);
    for (const response of await Promise.all(waiting)) await response.body?.cancel();
    await server.engine.changeTask(taskId, { kind: "cancel" });
    await untilLive(counted.live, 0);
  });
});
