import { createServer, LATEST_STATELESS_VERSION } from "@toolsmith/core";
import { MetaKey } from "@toolsmith/core/transport";
import { describe, expect, it } from "vitest";
import { createHttpHandler } from "../doors/http-handler.js";
import { headers2026, post, replyOf } from "../exchange/requests.test-util.js";

// The tasks extension over Streamable HTTP: a task outlives the POST that made it, and tasks/* route by Mcp-Name.

const TASKS = "io.modelcontextprotocol/tasks";
const META = {
  [MetaKey.protocolVersion]: LATEST_STATELESS_VERSION,
  [MetaKey.clientCapabilities]: { extensions: { [TASKS]: {} } },
};

describe("tasks over HTTP", () => {
  it("a task made by one POST outlives it: tasks/get on another POST, with Mcp-Name, reads it to its end", async () => {
    const server = createServer({ name: "tasks-http", version: "1" });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    server.tool({
      name: "job",
      description: "Waits, then reports",
      task: "optional",
      handler: async (_args, ctx) => {
        await gate;
        return ctx.signal.aborted ? "aborted" : "report ready";
      },
    });
    const handler = createHttpHandler(server);
    const created = await replyOf(
      await handler(
        post(
          { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "job", _meta: META } },
          headers2026("tools/call", "job"),
        ),
      ),
    );
    const task = created.result as Record<string, unknown>;
    expect(task).toMatchObject({ resultType: "task", status: "working" });
    const taskId = task.taskId as string;
    const getTask = async (id: number, name = taskId) =>
      handler(
        post(
          { jsonrpc: "2.0", id, method: "tasks/get", params: { taskId, _meta: META } },
          headers2026("tasks/get", name),
        ),
      );
    const first = await getTask(2);
    expect(first.status).toBe(200);
    expect(((await replyOf(first)).result as Record<string, unknown>).status).toBe("working");
    const mismatch = await getTask(3, "some-other-task");
    expect(mismatch.status).toBe(400);
    expect(((await replyOf(mismatch)).error as { code: number }).code).toBe(-32020);
    // The POST that made it was closed long ago: the handler was not cancelled with it.
    release();
    for (let id = 4; ; id++) {
      const got = (await replyOf(await getTask(id))).result as Record<string, unknown>;
      if (got.status === "working") continue;
      expect(got).toMatchObject({ status: "completed", result: { content: [{ type: "text", text: "report ready" }] } });
      break;
    }
  });
});
