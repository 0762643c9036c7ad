import { createServer, type ServerOptions } from "@toolsmith/core";
import { z } from "zod";

/**
 * The server a Worker serves: nothing kept between requests but what the client carries back (`requestState`, sealed
 * with the Worker's `stateKey`), so any isolate in any location can answer any request. `options`: server options
 * beyond its own (the stateKey).
 */
export function createWorkerServer(options: Partial<ServerOptions> = {}) {
  const server = createServer({
    ...options,
    name: "toolsmith-worker",
    version: "0.1.0",
    instructions: "add adds, plan_trip asks where and when, then plans; toggle_forecast lists or unlists forecast.",
  });
  server.tool({
    name: "add",
    description: "Add two numbers.",
    input: { a: z.number(), b: z.number() },
    annotations: { readOnlyHint: true },
    handler: ({ a, b }) => a + b,
  });
  server.tool({
    name: "plan_trip",
    description: "Plan a trip: asks the user where to, then when, then answers with the plan.",
    input: { traveller: z.string().min(1).max(100) },
    handler: async ({ traveller }, ctx) => {
      // Computed once: each round replays the handler, and what it kept comes back sealed in requestState.
      const ref = await ctx.keep("ref", () => `trip-${crypto.randomUUID()}`);
      const where = await ctx.elicit({ message: "Where to?", schema: { city: z.string() } });
      if (where.action !== "accept") return `${ref}: no trip for ${traveller}`;
      const when = await ctx.elicit({
        message: `When do you leave for ${where.content.city}?`,
        schema: { date: z.string() },
      });
      if (when.action !== "accept") return `${ref}: no date, no trip to ${where.content.city}`;
      return `${ref}: ${traveller} goes to ${where.content.city} on ${when.content.date}`;
    },
  });
  const forecast = server.tool({
    name: "forecast",
    description: "Listed while toggle_forecast has turned it on.",
    input: { city: z.string() },
    handler: ({ city }) => `Sunny in ${city}`,
  });
  forecast.disable();
  server.tool({
    name: "toggle_forecast",
    description: "Lists or unlists forecast: listen streams in this isolate hear tools/list change.",
    handler: () => {
      if (forecast.enabled) forecast.disable();
      else forecast.enable();
      return forecast.enabled ? "forecast listed" : "forecast unlisted";
    },
  });
  return server;
}
