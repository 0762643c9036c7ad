import type { RequestContext } from "@toolsmith/core";
import { type AuditRecord, audit, rateLimit } from "@toolsmith/core/middleware";
import { McpServer, type McpServerOptions, tool, use } from "@toolsmith/decorators";
import { Notes } from "@toolsmith/example-notes";
import { WordTools } from "@toolsmith/example-word-tools";
import { z } from "zod";

/**
 * Two example servers as modules of one: the notes server's tools as `notes.add`, `notes.search`, …, the word tools
 * as `words.word_count` and `words.snake_case`, the notes resources at their own `notes://` URIs. One middleware
 * stack covers every module: an audit trail of who called what, and a rate limit per caller.
 */
@use(
  audit((entry) => {
    // The last 1,000 entries: a trail that cannot grow without bound.
    if (Workbench.trail.push(entry) > 1000) Workbench.trail.shift();
  }),
  rateLimit({ capacity: 20, perSecond: 5 }),
)
export class Workbench extends McpServer {
  /** The latest audited operations, newest last (a real server would send them to a file or a service). */
  static readonly trail: AuditRecord[] = [];
  name = "workbench";
  version = "0.1.0";
  instructions = "notes.* keep notes, words.* count and reshape words; note_stats combines them.";
  readonly #notes: Notes;
  readonly #words: WordTools;

  /** `server`: server options beyond the class's own (an engine, a shared stateKey). */
  constructor(
    notes = new Notes([{ title: "Welcome", body: "Composed from two example servers", tags: ["demo"] }]),
    server: McpServerOptions = {},
  ) {
    const words = new WordTools();
    super({ ...server, mount: { notes, words } });
    this.#notes = notes;
    this.#words = words;
  }

  @tool({
    description: "How many words a note's body has, and its title in snake_case: the two modules' own methods at work.",
    input: { id: z.string().describe("a note id, from notes://all") },
    annotations: { readOnlyHint: true },
  })
  async note_stats({ id }: { id: string }, ctx: RequestContext) {
    // The notes module reads the workbench's store: ctx is this server's.
    const note = await this.#notes.note({ id }, ctx);
    // A failure the model should read and act on: a plain Error becomes an isError result, not a protocol error.
    if (!note) throw new Error(`There is no note ${id}; read notes://all for the ids`);
    return {
      id,
      words: note.body === "" ? 0 : this.#words.word_count({ text: note.body }),
      slug: this.#words.snake_case({ text: note.title.replace(/\s+/g, "") }),
    };
  }
}
