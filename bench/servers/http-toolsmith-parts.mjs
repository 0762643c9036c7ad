import { z } from "zod";

// What the Toolsmith HTTP bench servers share: the one `add` tool, and the port they are told.

/** `server` with the `add` tool every bench server offers. */
export function withAddTool(server) {
  server.tool({
    name: "add",
    description: "Add two numbers",
    input: { a: z.number(), b: z.number() },
    handler: ({ a, b }) => a + b,
  });
  return server;
}

/** The port from `--port N` or PORT (0 picks a free one). */
export function benchPort() {
  const at = process.argv.indexOf("--port");
  return Number(at > 0 ? process.argv[at + 1] : (process.env.PORT ?? 0));
}
