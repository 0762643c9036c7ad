// Task tools for peers outside vitest (the Inspector CLI): run as a script (node dist/task-tools-server.js) it serves
// over stdio, with --http Streamable HTTP on $PORT (said on stderr). Each tool answers with the task it ran as.
import { createServer } from "@toolsmith/core";
import { listen } from "@toolsmith/transport-http";
import { releaseStdout, serveStdio } from "@toolsmith/transport-stdio";
import { z } from "zod";

const server = createServer({ name: "task-tools", version: "1.0.0", tasks: { pollIntervalMs: 50 } });
const Counted = z.object({ words: z.number().int(), task: z.string().nullable() });
const count = (text: string) => text.split(/\s+/).filter(Boolean).length;

server.tool({
  name: "count_words",
  description: "Counts the words of a text; only as a task",
  input: { text: z.string() },
  output: Counted,
  task: "required",
  handler: ({ text }, ctx) => {
    ctx.progress(1, 1, "counted");
    return { words: count(text), task: ctx.task?.id ?? null };
  },
});
server.tool({
  name: "count_words_maybe",
  description: "Counts the words of a text; as a task when the client asks for one",
  input: { text: z.string() },
  output: Counted,
  task: "optional",
  handler: ({ text }, ctx) => ({ words: count(text), task: ctx.task?.id ?? null }),
});
server.tool({
  name: "ask_name",
  description: "Asks for a name, then greets; only as a task",
  task: "required",
  handler: async (_args, ctx) => {
    const answer = await ctx.elicit({ message: "What is your name?", schema: { name: z.string() } });
    return answer.action === "accept" ? `Hello, ${answer.content.name}!` : `No name (${answer.action})`;
  },
});

if (process.argv.includes("--http")) {
  releaseStdout();
  await listen(server);
} else serveStdio(server);
