import { createServer, type Logger, type Server } from "@toolsmith/core";
import { z } from "zod";

// The tools the tasks cases drive with the official ext-tasks client: each may run as a task, in either generation.

/** Gates a `report` task waits on, opened by the `release` tool (the test cannot reach the server's process). */
function gates() {
  const open = new Map<string, () => void>();
  const waiting = new Map<string, Promise<void>>();
  return {
    wait(key: string): Promise<void> {
      let promise = waiting.get(key);
      if (promise === undefined) {
        promise = new Promise<void>((resolve) => open.set(key, resolve));
        waiting.set(key, promise);
      }
      return promise;
    },
    release(key: string): void {
      void this.wait(key);
      open.get(key)?.();
    },
  };
}

/** The tasks fixture: `report` (waits for its gate), `confirm` (asks), `forever` (only as a task), `broken`. */
export function createTasksFixture(options: { logger?: Logger } = {}): Server {
  const server = createServer({
    name: "tasks-fixture",
    version: "1.0.0",
    // Polled every 50 ms: the client's driver follows a task without waiting a second between looks.
    tasks: { pollIntervalMs: 50 },
    ...(options.logger ? { logger: options.logger } : {}),
  });
  const gate = gates();
  const stopped = (signal: AbortSignal) =>
    new Promise<never>((_, reject) => signal.addEventListener("abort", () => reject(signal.reason), { once: true }));
  server.tool({
    name: "report",
    description: "Says half way, waits until `release` opens its gate, then reports",
    input: { key: z.string() },
    task: "optional",
    handler: async ({ key }, ctx) => {
      ctx.progress(1, 2, "half way");
      await Promise.race([gate.wait(key), stopped(ctx.signal)]);
      return `report ${key}`;
    },
  });
  server.tool({
    name: "release",
    description: "Opens the gate a report waits on",
    input: { key: z.string() },
    handler: ({ key }) => {
      gate.release(key);
      return "released";
    },
  });
  server.tool({
    name: "confirm",
    description: "Asks for a name, then greets",
    task: "optional",
    handler: async (_args, ctx) => {
      const answer = await ctx.elicit({ message: "What is your name?", schema: { name: z.string() } });
      return answer.action === "accept" ? `Hello, ${answer.content.name}!` : `No name (${answer.action})`;
    },
  });
  server.tool({
    name: "forever",
    description: "Runs until cancelled; only as a task",
    task: "required",
    handler: async (_args, ctx) => stopped(ctx.signal),
  });
  server.tool({
    name: "broken",
    description: "Fails as a tool does",
    task: "optional",
    handler: () => {
      throw new Error("it broke");
    },
  });
  return server;
}
