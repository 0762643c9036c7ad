import { createServer } from "@toolsmith/core";
import { serveStdio } from "@toolsmith/transport-stdio";
import { z } from "zod";

// The Toolsmith server with one pass-through middleware: what the middleware machinery costs.
const server = createServer({ name: "bench-toolsmith-middleware", version: "1.0.0" });
server.use((_operation, next) => next());
server.tool({
  name: "add",
  description: "Add two numbers",
  input: { a: z.number(), b: z.number() },
  handler: ({ a, b }) => a + b,
});
serveStdio(server);
