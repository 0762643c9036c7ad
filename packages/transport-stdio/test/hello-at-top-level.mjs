// A server whose main module prints at the top level, before serveStdio: node hello-at-top-level.mjs
// (REDIRECT_STDOUT=off serves with { redirectStdout: false }).
import { createServer } from "@toolsmith/core";
import { serveStdio } from "@toolsmith/transport-stdio";
import { z } from "zod";

console.log("hello");
process.stdout.write("hello from process.stdout.write\n");

const server = createServer({ name: "hello", version: "1.0.0" });
server.tool({
  name: "echo",
  description: "Return the text",
  input: { text: z.string() },
  handler: ({ text }) => text,
});
serveStdio(server, process.env.REDIRECT_STDOUT === "off" ? { redirectStdout: false } : {});
