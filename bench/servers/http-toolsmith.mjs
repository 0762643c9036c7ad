import { createServer } from "@toolsmith/core";
import { z } from "zod";
// Not a declared dependency of the bench (that would touch the lockfile): the built package, by path.
import { listen } from "../../packages/transport-http/dist/index.js";

// Port from `--port N` or PORT (0 picks a free one); listen() says the URL on stdout.
const server = createServer({ name: "bench-toolsmith", version: "1.0.0" });
server.tool({
  name: "add",
  description: "Add two numbers",
  input: { a: z.number(), b: z.number() },
  handler: ({ a, b }) => a + b,
});
const at = process.argv.indexOf("--port");
const port = Number(at > 0 ? process.argv[at + 1] : (process.env.PORT ?? 0));
await listen(server, { port, host: "127.0.0.1", log: process.stdout });
