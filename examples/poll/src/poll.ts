import type { ToolUi } from "@toolsmith/core";
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

/** A poll with an MCP App: the host renders the poll as bars, and a click on Vote calls `vote` through the host. */
export class Poll extends McpServer {
  name = "poll";
  version = "0.1.0";
  readonly question = "Which transport?";
  readonly votes = new Map<string, number>([
    ["stdio", 0],
    ["HTTP", 0],
  ]);

  #poll() {
    return { question: this.question, options: [...this.votes].map(([label, votes]) => ({ label, votes })) };
  }

  @tool({ description: "Show the poll and its votes so far.", output: poll, ui: view })
  show_poll() {
    return this.#poll();
  }

  @tool({
    description: "Vote for one option of the poll.",
    input: { option: z.string() },
    output: poll,
    ui: { ...view, visibility: ["app"] },
  })
  vote({ option }: { option: string }) {
    const votes = this.votes.get(option);
    if (votes === undefined) throw new Error(`no option "${option}": pick one of ${[...this.votes.keys()].join(", ")}`);
    this.votes.set(option, votes + 1);
    return this.#poll();
  }
}
