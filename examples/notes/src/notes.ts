import { ErrorCode, McpError, type RequestContext, type Store } from "@toolsmith/core";
import { McpServer, type McpServerOptions, prompt, resource, tool } from "@toolsmith/decorators";
import { z } from "zod";
import { addToTags, removeFromTags, seedTags, tagsJson } from "./tag-index.js";

// What one note may carry, so one add cannot make every later read slow.
const MAX_TITLE = 200;
const MAX_BODY = 100_000;
const MAX_TAGS = 32;
const MAX_TAG = 64;

const NoteSchema = z.object({ title: z.string(), body: z.string(), tags: z.array(z.string()) });
export type Note = z.infer<typeof NoteSchema>;
/** How many notes there are, and the last id given: one record, changed atomically. */
const Meta = z.object({ lastId: z.number().int(), count: z.number().int() });

// Keys in the server's store, under `notes/` so a server that mounts this one keeps its own keys apart. A note's id
// is zero-padded in its key, so the store's key order is the order notes were added.
const META = "notes/meta";
const SEEDED = "notes/seeded";
const NOTE = "notes/note:";
const noteKey = (id: number | string) => `${NOTE}${String(id).padStart(10, "0")}`;
const idOf = (key: string) => String(Number(key.slice(NOTE.length)));
const NOTE_ID = /^[1-9]\d{0,9}$/;
// A tag is a key in the store, and no store key holds a lone surrogate (JSON can carry one): refused with the input,
// before the add writes anything, not by the store halfway through it.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const Tag = z
  .string()
  .max(MAX_TAG)
  .refine((tag) => !LONE_SURROGATE.test(tag), "a tag must be well-formed Unicode (no lone surrogate)");

/** Every note with its id, oldest first, a page of the store at a time. */
async function allNotes(store: Store): Promise<[string, Note][]> {
  const notes: [string, Note][] = [];
  let cursor: string | undefined;
  do {
    const page = await store.list({ prefix: NOTE, schema: NoteSchema, limit: 1000, ...(cursor ? { cursor } : {}) });
    for (const { key, value } of page.items) notes.push([idOf(key), value]);
    cursor = page.nextCursor;
  } while (cursor);
  return notes;
}

/**
 * A notebook kept in the server's store (`ctx.store`: the engine's, so every process sharing a Redis engine reads
 * the same notes): tools change it, resources read it, prompts put it in front of the user.
 */
export class Notes extends McpServer {
  name = "notes";
  version = "0.1.0";
  instructions =
    "Notes kept in the server's store. add, remove and search change or query them; notes://{id} reads one.";
  readonly #initial: readonly Note[];
  #seeding: Promise<void> | undefined;

  /**
   * `initial`: the notes a new store starts with (ids 1, 2, …), written by the first process that needs them and
   * never again. `server`: server options beyond the class's own (an engine, a shared stateKey).
   */
  constructor(initial: Note[] = [], server: McpServerOptions = {}) {
    super(server);
    this.#initial = initial;
  }

  // The store, once the initial notes are in it (checked once per process; a failed attempt is tried again).
  async #store(ctx: RequestContext): Promise<Store> {
    this.#seeding ??= this.#seed(ctx.store).catch((error: unknown) => {
      this.#seeding = undefined;
      throw error;
    });
    await this.#seeding;
    return ctx.store;
  }

  async #seed(store: Store): Promise<void> {
    if (this.#initial.length === 0 || (await store.get(SEEDED))) return;
    // Safe to repeat: two processes seeding at once write the same notes under the same ids.
    const notes = this.#initial.map(({ title, body, tags }) => ({ title, body, tags: [...tags] }));
    for (const [index, note] of notes.entries()) await store.update(noteKey(index + 1), (old) => old ?? note);
    await seedTags(store, notes);
    await store.update(META, (meta) => meta ?? { lastId: notes.length, count: notes.length }, { schema: Meta });
    await store.set(SEEDED, true);
  }

  @tool({
    title: "Add a note",
    description:
      "Store a note and return its id and how many notes there are now. " +
      `A title is 1–${MAX_TITLE} characters and a body up to ${MAX_BODY}; a note has up to ${MAX_TAGS} tags of up to ${MAX_TAG} characters each.`,
    input: {
      title: z.string().min(1).max(MAX_TITLE),
      body: z.string().max(MAX_BODY),
      tags: z.array(Tag).max(MAX_TAGS).default([]),
    },
    output: z.object({ id: z.string(), count: z.number().int() }),
  })
  async add({ title, body, tags }: { title: string; body: string; tags: string[] }, ctx: RequestContext) {
    const store = await this.#store(ctx);
    // An id no other process gives, and the count with it: one atomic update.
    const meta = await store.update(META, (old) => ({ lastId: (old?.lastId ?? 0) + 1, count: (old?.count ?? 0) + 1 }), {
      schema: Meta,
    });
    const id = String(meta?.lastId);
    await store.set(noteKey(id), { title, body, tags });
    await addToTags(store, id, tags);
    return { id, count: meta?.count ?? 0 };
  }

  @tool({
    description: "Delete a note by id.",
    input: { id: z.string() },
    annotations: { destructiveHint: true, idempotentHint: true },
  })
  async remove({ id }: { id: string }, ctx: RequestContext) {
    const store = await this.#store(ctx);
    const note = NOTE_ID.test(id) ? await store.get(noteKey(id), NoteSchema) : undefined;
    // Only the process whose delete took it counts it out: a note removed twice at once is counted once.
    if (!note || !(await store.delete(noteKey(id)))) {
      throw new Error(`There is no note ${id}; read notes://all for the ids`);
    }
    await store.update(META, (old) => old && { ...old, count: old.count - 1 }, { schema: Meta });
    await removeFromTags(store, id, note.tags);
    return `Deleted note ${id}`;
  }

  @tool({
    description: "Find the notes whose title, body or tags contain the text (case-insensitive).",
    input: { query: z.string().min(1) },
    annotations: { readOnlyHint: true },
  })
  async search({ query }: { query: string }, ctx: RequestContext) {
    const needle = query.toLowerCase();
    const matches = (await allNotes(await this.#store(ctx)))
      .filter(([, note]) => [note.title, note.body, ...note.tags].some((text) => text.toLowerCase().includes(needle)))
      .map(([id, note]) => ({ id, title: note.title }));
    return { matches };
  }

  // Fed by the store: a change to its key tells the resource's subscribers, on every process sharing the engine.
  @resource("notes://all", {
    description: "Every note's id and title, one per line.",
    mimeType: "text/plain",
    storeKey: META,
  })
  async all(ctx: RequestContext) {
    return (await allNotes(await this.#store(ctx))).map(([id, note]) => `${id}: ${note.title}`).join("\n");
  }

  @resource("notes://tags", {
    description: "Each tag and the ids of the notes that carry it.",
    mimeType: "application/json",
  })
  async tags(ctx: RequestContext) {
    return tagsJson(await this.#store(ctx));
  }

  @resource("notes://{id}", {
    description: "One note.",
    mimeType: "application/json",
    list: "listNotes",
    storeKey: { prefix: NOTE, uri: (key) => `notes://${idOf(key)}` },
  })
  async note({ id }: { id: string }, ctx: RequestContext) {
    const store = await this.#store(ctx);
    return NOTE_ID.test(id) ? store.get(noteKey(id), NoteSchema) : undefined;
  }

  async listNotes(ctx: RequestContext) {
    return (await allNotes(await this.#store(ctx))).map(([id, note]) => ({
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
  async summarise({ topic, style = "brief" }: { topic: string; style?: "brief" | "detailed" }, ctx: RequestContext) {
    const lines = (await allNotes(await this.#store(ctx))).map(([, note]) => `- ${note.title}: ${note.body}`);
    return `Give a ${style} summary of my notes about ${topic}:\n${lines.join("\n")}`;
  }

  @prompt({ description: "Ask for a review of one note, with the note attached.", args: { id: z.string() } })
  async review({ id }: { id: string }, ctx: RequestContext) {
    const note = await this.note({ id }, ctx);
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
