import { ErrorCode, McpError, type RequestContext, type Server, text } from "@toolsmith/core";
import { z } from "zod";
import { sleep } from "./sleep.js";

// The fixtures of the conformance suite's tasks scenarios (SEP-2663, io.modelcontextprotocol/tasks): names,
// arguments and answers are exactly what the suite sends. The suite runs its scenarios at once: all re-entrant.

/** Register the tasks fixtures on `server`. */
export function addTaskFixtures(server: Server): void {
  server.tool({
    name: "greet",
    description: "Tasks fixture: answers at once, never as a task",
    input: { name: z.string() },
    handler: ({ name }) => `Hello, ${name}!`,
  });

  server.tool({
    name: "slow_compute",
    description: "Tasks fixture: waits `seconds`, as a task when the client speaks the extension",
    input: { seconds: z.number().min(0), label: z.string().optional() },
    task: "optional",
    handler: async ({ seconds, label }, ctx) => {
      // A cancelled task aborts ctx.signal, which ends the wait at once.
      await sleep(seconds * 1000, ctx.signal);
      return `Computed${label ? ` ${label}` : ""} after ${seconds}s`;
    },
  });

  server.tool({
    name: "failing_job",
    description: "Tasks fixture: only as a task; after a second it returns a tool error (the task completes)",
    task: "required",
    handler: async (_args, ctx) => {
      await sleep(1000, ctx.signal);
      return { content: [text("The job failed: the input file is missing")], isError: true };
    },
  });

  server.tool({
    name: "protocol_error_job",
    description: "Tasks fixture: throws a protocol error (the task fails)",
    task: "optional",
    handler: () => {
      throw new McpError(ErrorCode.InternalError, "The job hit an internal error");
    },
  });

  server.tool({
    name: "confirm_delete",
    description: "Tasks fixture: asks once for confirmation, then deletes (nothing)",
    input: { filename: z.string() },
    task: "optional",
    handler: async ({ filename }, ctx) => {
      const answer = await ctx.elicit({ message: `Delete ${filename}?`, schema: { confirm: z.boolean() } });
      const confirmed = answer.action === "accept" && answer.content?.confirm === true;
      return confirmed ? `Deleted ${filename}` : `Kept ${filename}`;
    },
  });

  server.tool({
    name: "multi_input",
    description: "Tasks fixture: asks two questions at once",
    task: "optional",
    handler: async (_args, ctx) => multiInput(ctx),
  });

  server.tool({
    name: "test_tool_with_task",
    description: "Tasks fixture: asks for a name in an input_required round, then goes on as a task",
    task: { support: "required", detach: "manual" },
    handler: async (_args, ctx) => {
      const answer = await ctx.elicit({
        key: "user_name",
        message: "What is your name?",
        schema: { name: z.string() },
      });
      const name = answer.content?.name ?? "unknown";
      await ctx.detach({ statusMessage: `Working for ${name}` });
      await sleep(100, ctx.signal);
      return `Task finished for ${name}`;
    },
  });
}

async function multiInput(ctx: RequestContext): Promise<string> {
  // Asked together: both keys are outstanding at once, so each can be answered on its own.
  const [name, confirm] = await Promise.all([
    ctx.elicit({ message: "Your name?", schema: { name: z.string() } }),
    ctx.elicit({ message: "Go ahead?", schema: { confirm: z.boolean() } }),
  ]);
  return `Name: ${name.content?.name ?? "unknown"}; confirmed: ${confirm.content?.confirm === true}`;
}
