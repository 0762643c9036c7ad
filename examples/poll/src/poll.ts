import type { RequestContext, ToolUi } from "@toolsmith/core";
import { McpServer, tool } from "@toolsmith/decorators";
import { z } from "zod";
import { pollPage } from "./page.js";

const poll = z.object({
  question: z.string(),
  options: z.array(z.object({ label: z.string(), votes: z.number().int() })),
});

/** The app both tools link: `show_poll` draws it, and its Vote buttons call `vote`, which only the app may call. */
const view: ToolUi = {
  uri: "ui://poll/view.html",
  html: pollPage,
  description: "The poll as bars",
  prefersBorder: true,
};

// The votes, one record of the server's store: { option: count }.
const Votes = z.record(z.string(), z.number().int());
const OPTIONS = ["stdio", "HTTP"] as const;

/**
 * A poll with an MCP App: the host renders the poll as bars, and a click on Vote calls `vote` through the host. The
 * votes live in the server's store (`ctx.store`), so every process sharing its engine counts the same ones.
 */
export class Poll extends McpServer {
  name = "poll";
  version = "0.1.0";
  readonly question = "Which transport?";

  #poll(votes: z.infer<typeof Votes> | undefined) {
    return {
      question: this.question,
      options: OPTIONS.map((label) => ({ label, votes: votes?.[label] ?? 0 })),
    };
  }

  @tool({ description: "Show the poll and its votes so far.", output: poll, ui: view })
  async show_poll(_args: unknown, ctx: RequestContext) {
    return this.#poll(await ctx.store.get("votes", Votes));
  }

  @tool({
    description: "Vote for one option of the poll.",
    input: { option: z.string() },
    output: poll,
    ui: { ...view, visibility: ["app"] },
  })
  async vote({ option }: { option: string }, ctx: RequestContext) {
    const label = OPTIONS.find((candidate) => candidate === option);
    if (label === undefined) throw new Error(`no option "${option}": pick one of ${OPTIONS.join(", ")}`);
    // Atomic across processes: two votes at once are both counted.
    const votes = await ctx.store.update("votes", (old) => ({ ...old, [label]: (old?.[label] ?? 0) + 1 }), {
      schema: Votes,
    });
    return this.#poll(votes);
  }
}
