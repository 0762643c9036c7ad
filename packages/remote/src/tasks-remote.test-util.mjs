import { createServer } from "@toolsmith/core";
import { listen } from "@toolsmith/transport-http";
import { z } from "zod";

// The remote in tasks.test.ts: a Toolsmith server over HTTP (the built packages) whose tools run as tasks, in a
// process of its own so that a test can kill it mid-task. It says its URL on stderr.
const server = createServer({ name: "tasks-remote", version: "1.0.0", tasks: { pollIntervalMs: 50 } });
const started = new Set();
const stopped = new Set();
server.tool({
  name: "double",
  description: "Doubles a number; only as a task",
  input: { n: z.number() },
  task: "required",
  handler: ({ n }, ctx) => {
    ctx.progress(1, 2, "doubling");
    return String(n * 2);
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
  name: "intro",
  description: "Asks a name as a request, then becomes a task that greets",
  task: { support: "required", detach: "manual" },
  handler: async (_args, ctx) => {
    const answer = await ctx.elicit({ message: "Who are you?", schema: { name: z.string() } });
    await ctx.detach();
    return answer.action === "accept" ? `Hi, ${answer.content.name}` : `No name (${answer.action})`;
  },
});
server.tool({
  name: "forever",
  description: "Runs until cancelled; only as a task",
  input: { key: z.string() },
  task: "required",
  handler: ({ key }, ctx) =>
    new Promise((_, reject) => {
      started.add(key);
      ctx.signal.addEventListener(
        "abort",
        () => {
          stopped.add(key);
          reject(ctx.signal.reason);
        },
        { once: true },
      );
    }),
});
server.tool({
  name: "expiring",
  description: "Runs until its task's TTL (300 ms) passes, then is forgotten; only as a task",
  task: { support: "required", ttlMs: 300 },
  handler: (_args, ctx) =>
    new Promise((_, reject) => ctx.signal.addEventListener("abort", () => reject(ctx.signal.reason))),
});
server.tool({
  name: "seen",
  description: "Whether a forever task of this key started, and whether it was stopped",
  input: { key: z.string() },
  handler: ({ key }) => JSON.stringify({ started: started.has(key), stopped: stopped.has(key) }),
});
await listen(server, { port: 0 });
