import { ErrorCode, McpError } from "@toolsmith/core";
import { McpServer, type McpServerOptions, prompt, resource, tool } from "@toolsmith/decorators";
import { z } from "zod";
import { TagIndex } from "./tag-index.js";

// What one note may carry, so one add cannot make every later read slow.
const MAX_TITLE = 200;
const MAX_BODY = 100_000;
const MAX_TAGS = 32;
const MAX_TAG = 64;

export interface Note {
  title: string;
  body: string;
  tags: string[];
}

/** A notebook kept in memory: tools change it, resources read it, prompts put it in front of the user. */
export class Notes extends McpServer {
  name = "notes";
  version = "0.1.0";
  instructions = "Notes kept in memory. add, remove and search change or query them; notes://{id} reads one.";
  readonly #notes = new Map<string, Note>();
  readonly #tags = new TagIndex();
  #nextId = 1;

  /** `server`: server options beyond the class's own (an engine, a shared stateKey). */
  constructor(initial: Note[] = [], server: McpServerOptions = {}) {
    super(server);
    for (const note of initial) this.#store(note);
  }

  #store(note: Note): string {
    const id = String(this.#nextId++);
    this.#notes.set(id, note);
    this.#tags.add(id, note.tags);
    return id;
  }

  @tool({
    title: "Add a note",
    description:
      "Store a note and return its id and how many notes there are now. " +
      `A title is 1–${MAX_TITLE} characters and a body up to ${MAX_BODY}; a note has up to ${MAX_TAGS} tags of up to ${MAX_TAG} characters each.`,
    input: {
      title: z.string().min(1).max(MAX_TITLE),
      body: z.string().max(MAX_BODY),
      tags: z.array(z.string().max(MAX_TAG)).max(MAX_TAGS).default([]),
    },
    output: z.object({ id: z.string(), count: z.number().int() }),
  })
  add({ title, body, tags }: { title: string; body: string; tags: string[] }) {
    const id = this.#store({ title, body, tags });
    return { id, count: this.#notes.size };
  }

  @tool({
    description: "Delete a note by id.",
    input: { id: z.string() },
    annotations: { destructiveHint: true, idempotentHint: true },
  })
  remove({ id }: { id: string }) {
    const note = this.#notes.get(id);
    if (!note) throw new Error(`There is no note ${id}; read notes://all for the ids`);
    this.#notes.delete(id);
    this.#tags.remove(id, note.tags);
    return `Deleted note ${id}`;
  }

  @tool({
    description: "Find the notes whose title, body or tags contain the text (case-insensitive).",
    input: { query: z.string().min(1) },
    annotations: { readOnlyHint: true },
  })
  search({ query }: { query: string }) {
    const needle = query.toLowerCase();
    const matches = [...this.#notes]
      .filter(([, note]) => [note.title, note.body, ...note.tags].some((text) => text.toLowerCase().includes(needle)))
      .map(([id, note]) => ({ id, title: note.title }));
    return { matches };
  }

  @resource("notes://all", { description: "Every note's id and title, one per line.", mimeType: "text/plain" })
  all() {
    return [...this.#notes].map(([id, note]) => `${id}: ${note.title}`).join("\n");
  }

  @resource("notes://tags", {
    description: "Each tag and the ids of the notes that carry it.",
    mimeType: "application/json",
  })
  tags() {
    return this.#tags.toJson();
  }

  @resource("notes://{id}", { description: "One note.", mimeType: "application/json", list: "listNotes" })
  note({ id }: { id: string }) {
    return this.#notes.get(id);
  }

  listNotes() {
    return [...this.#notes].map(([id, note]) => ({
      uri: `notes://${id}`,
      name: note.title,
      mimeType: "application/json",
    }));
  }

  @prompt({
    description: "Ask for a summary of the notes about a topic.",
    args: {
      topic: z.string().describe("what the summary is about"),
      style: z.enum(["brief", "detailed"]).optional().describe("brief (default) or detailed"),
    },
  })
  summarise({ topic, style = "brief" }: { topic: string; style?: "brief" | "detailed" }) {
    const lines = [...this.#notes.values()].map((note) => `- ${note.title}: ${note.body}`);
    return `Give a ${style} summary of my notes about ${topic}:\n${lines.join("\n")}`;
  }

  @prompt({ description: "Ask for a review of one note, with the note attached.", args: { id: z.string() } })
  review({ id }: { id: string }) {
    const note = this.#notes.get(id);
    // Outside tools there is no isError result: a bad argument is a JSON-RPC error, said with McpError.
    if (!note) throw new McpError(ErrorCode.InvalidParams, `There is no note ${id}; read notes://all for the ids`);
    return [
      { role: "user" as const, content: "Review this note: is it clear, and what is missing?" },
      {
        role: "user" as const,
        content: {
          type: "resource" as const,
          resource: { uri: `notes://${id}`, mimeType: "application/json", text: JSON.stringify(note) },
        },
      },
    ];
  }
}
