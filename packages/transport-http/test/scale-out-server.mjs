// One of several processes behind a load balancer (scale-out.test.ts): every process gets the same STATE_KEY, and
// says its pid in its question (the input_required round) and in its answer (the retry), so a test sees who served.
import { createServer } from "@toolsmith/core";
import { listen } from "@toolsmith/transport-http";
import { z } from "zod";

const server = createServer({ name: "scale-out", version: "1.0.0", stateKey: process.env.STATE_KEY });
server.tool({
  name: "book",
  description: "Book a seat once the user confirms.",
  input: { seat: z.string() },
  handler: async ({ seat }, ctx) => {
    const answer = await ctx.elicit({
      message: `Book seat ${seat}? (asked by ${process.pid})`,
      schema: { sure: z.boolean() },
    });
    return `${answer.action === "accept" && answer.content.sure ? "booked" : "not booked"} ${seat} (answered by ${process.pid})`;
  },
});
await listen(server, { port: 0 });
