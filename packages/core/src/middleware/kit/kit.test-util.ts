import { z } from "zod";
import type { Server } from "../../server/servable.js";
import { createServer } from "../../server/server.js";
import { McpError } from "../../wire/errors.js";

// The server the kit's tests run their middleware on: a tool that answers, one that fails, one that refuses, one
// that waits for its signal, and a resource that never answers.

export function kitServer(): Server {
  const s = createServer({ name: "kit", version: "1" });
  s.tool({ name: "add", description: "Add", input: { a: z.number(), b: z.number() }, handler: ({ a, b }) => a + b });
  s.tool({
    name: "fail",
    description: "Fails",
    handler: () => {
      throw new Error("no");
    },
  });
  s.tool({ name: "refuse", description: "Refuses", handler: () => Promise.reject(new McpError(-32002, "gone")) });
  s.tool({
    name: "slow",
    description: "Waits for its signal",
    handler: (_args, ctx) =>
      new Promise((resolve) =>
        ctx.signal.addEventListener("abort", () => resolve(`stopped: ${String((ctx.signal.reason as Error).name)}`)),
      ),
  });
  s.resource({ uri: "docs://slow", handler: () => new Promise(() => {}) });
  return s;
}
