import { createServer } from "@toolsmith/core";
import { serveStdio } from "@toolsmith/transport-stdio";
import { z } from "zod";

// The remote in guards.test.ts: a Toolsmith server on its stdio (the built packages), with a tool, a prompt, a
// resource and a template each open and each to be guarded by the gateway, one that completes, and a tool that
// kills the process mid-call.
const server = createServer({ name: "toolsmith-stdio-remote", version: "1.0.0" });
server.tool({
  name: "add",
  description: "Add two numbers",
  input: { a: z.number(), b: z.number() },
  handler: ({ a, b }) => String(a + b),
});
server.tool({ name: "secret", description: "A secret tool", handler: () => "the secret" });
server.tool({
  name: "die",
  description: "Ends this process mid-call",
  handler: (_, ctx) => {
    ctx.progress(1, 2, "about to die");
    setImmediate(() => process.exit(1));
    return new Promise(() => undefined);
  },
});
const topics = (value) => ({ values: ["alpha", "beta"].filter((topic) => topic.startsWith(value)) });
server.prompt({
  name: "greet",
  description: "Greets someone",
  args: { name: z.string() },
  handler: ({ name }) => `Hello, ${name}`,
});
server.prompt({
  name: "plan",
  description: "A secret plan",
  args: { topic: z.string() },
  complete: { topic: topics },
  handler: ({ topic }) => `The plan for ${topic}`,
});
server.resource({ uri: "info://about", name: "about", mimeType: "text/plain", handler: () => "about the remote" });
server.resource({ uri: "info://secret", name: "secret", mimeType: "text/plain", handler: () => "the secret" });
server.resource({
  uriTemplate: "item://{id}",
  name: "item",
  mimeType: "text/plain",
  complete: { id: topics },
  handler: ({ id }) => `item ${id}`,
});
server.resource({
  uriTemplate: "vault://{id}",
  name: "vault",
  mimeType: "text/plain",
  complete: { id: topics },
  handler: ({ id }) => `vault ${id}`,
});
serveStdio(server);
