import { createServer } from "@toolsmith/core";
import { serveStdio } from "@toolsmith/transport-stdio";
import { z } from "zod";

const server = createServer({ name: "bench-toolsmith", version: "1.0.0" });
server.tool({
  name: "add",
  description: "Add two numbers",
  input: { a: z.number(), b: z.number() },
  handler: ({ a, b }) => a + b,
});
serveStdio(server);
