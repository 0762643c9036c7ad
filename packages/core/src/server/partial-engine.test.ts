import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createMemoryEngine, type MemoryEngine } from "../engine/memory.js";
import { partialEngine, type RoleName } from "../engine/roles.test-util.js";
import { TASKS_EXTENSION } from "../protocol/tasks.js";
import { LATEST_HANDSHAKE_VERSION } from "../protocol/versions.js";
import { createTestClient } from "../testing/client.js";
import { createServer } from "./server.js";

// What a server asks of its engine, by what it serves: an engine that plays only some roles (docs/writing-an-engine.md)
// serves what needs no others, and none of the others' members is called.

const memories: MemoryEngine[] = [];
afterEach(() => {
  for (const memory of memories.splice(0)) memory.close();
});

function serverOn(played: readonly RoleName[]) {
  const memory = createMemoryEngine();
  memories.push(memory);
  const { engine, refused } = partialEngine(memory, played);
  const server = createServer({ name: "partial", version: "1", engine });
  server.tool({
    name: "greet",
    description: "Greets",
    input: { name: z.string() },
    handler: ({ name }) => `Hello, ${name}!`,
  });
  server.tool({ name: "report", description: "Runs as a task", task: "required", handler: () => "reported" });
  return { server, refused };
}

describe("an engine that plays some roles", () => {
  it("serves 2026-07-28 requests, an in-process session and a list change with EngineLifecycle alone", async () => {
    const { server, refused } = serverOn([]);
    await server.startEngine();
    const stateless = await createTestClient(server);
    expect(await stateless.callTool("greet", { name: "a" })).toMatchObject({
      content: [{ type: "text", text: "Hello, a!" }],
    });
    const session = await createTestClient(server, { protocolVersion: LATEST_HANDSHAKE_VERSION });
    expect(await session.callTool("greet", { name: "b" })).toMatchObject({
      content: [{ type: "text", text: "Hello, b!" }],
    });
    const extra = server.tool({ name: "extra", description: "Comes and goes", handler: () => "x" });
    extra.disable();
    expect((await session.listTools()).map((tool) => tool.name)).toEqual(["greet", "report"]);
    expect(refused).toEqual([]);
  });

  it("runs a task with EngineLifecycle and TaskStore", async () => {
    const { server, refused } = serverOn(["TaskStore"]);
    const c = await createTestClient(server, { capabilities: { extensions: { [TASKS_EXTENSION]: {} } } });
    const created = await c.request("tools/call", { name: "report" });
    const taskId = created.taskId as string;
    let task = await c.request("tasks/get", { taskId });
    while (task.status === "working") {
      await new Promise((resolve) => setImmediate(resolve));
      task = await c.request("tasks/get", { taskId });
    }
    expect(task).toMatchObject({ status: "completed", result: { content: [{ type: "text", text: "reported" }] } });
    expect(refused).toEqual([]);
  });
});
