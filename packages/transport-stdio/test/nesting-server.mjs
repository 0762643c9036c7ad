// A server for the spawned nesting tests: a plain tool, one that takes anything, one that elicits, a prompt with a
// completer and a resource. node nesting-server.mjs
import { createServer } from "@toolsmith/core";
import { serveStdio } from "@toolsmith/transport-stdio";
import { z } from "zod";

const server = createServer({ name: "nesting-fixture", version: "1.0.0" });
server.tool({ name: "echo", description: "Return the text", input: { text: z.string() }, handler: ({ text }) => text });
server.tool({ name: "anything", description: "Takes anything", input: { data: z.unknown() }, handler: () => "taken" });
server.tool({
  name: "asks",
  description: "Asks for a seat",
  input: { flight: z.string() },
  handler: async ({ flight }, ctx) => {
    const answer = await ctx.elicit({ message: `Seat on ${flight}?`, schema: { seat: z.string() } });
    return answer.action === "accept" ? answer.content.seat : answer.action;
  },
});
server.prompt({
  name: "greet",
  description: "Greets",
  args: { name: z.string() },
  complete: { name: () => ["Ada"] },
  handler: ({ name }) => `Hi ${name}`,
});
server.resource({ uri: "docs://readme", handler: () => "read me" });
serveStdio(server);
