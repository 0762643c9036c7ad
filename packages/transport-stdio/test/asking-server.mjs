// A server whose tool asks the client (handshake era), for the spawned two-way stdio tests:
// node asking-server.mjs (SHUTDOWN_TIMEOUT_MS and MAX_IN_FLIGHT optional)
import { setTimeout as delay } from "node:timers/promises";
import { createServer } from "@toolsmith/core";
import { serveStdio } from "@toolsmith/transport-stdio";
import { z } from "zod";

const server = createServer({ name: "asking-fixture", version: "1.0.0", clientRequestTimeoutMs: 600_000 });
server.tool({
  name: "ask",
  description: "Ask the user to repeat the tag; answer with what the user said",
  input: { tag: z.string() },
  handler: async ({ tag }, ctx) => {
    const answer = await ctx.elicit({ message: `say ${tag}`, schema: { said: z.string() } });
    return answer.action === "accept" ? answer.content.said : answer.action;
  },
});
server.tool({
  name: "sleep",
  description: "Wait ms milliseconds, then say so",
  input: { ms: z.number().int().min(0) },
  handler: async ({ ms }, ctx) => {
    await delay(ms, undefined, { signal: ctx.signal });
    return `slept ${ms}`;
  },
});

server.tool({
  name: "wait",
  description: "Run until aborted, then say so (nothing else keeps the process alive meanwhile)",
  handler: (_args, ctx) =>
    new Promise((resolve) => ctx.signal.addEventListener("abort", () => resolve("aborted"), { once: true })),
});

server.tool({
  name: "deaf",
  description: "Never finish, whatever happens (ignores its abort)",
  handler: () => new Promise(() => {}),
});

const shutdownTimeoutMs = process.env.SHUTDOWN_TIMEOUT_MS ? Number(process.env.SHUTDOWN_TIMEOUT_MS) : undefined;
const maxInFlight = process.env.MAX_IN_FLIGHT ? Number(process.env.MAX_IN_FLIGHT) : undefined;
serveStdio(server, {
  ...(shutdownTimeoutMs === undefined ? {} : { shutdownTimeoutMs }),
  ...(maxInFlight === undefined ? {} : { maxInFlight }),
});
