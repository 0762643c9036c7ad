import { createServer, type ServerOptions, type Store } from "@toolsmith/core";
import { z } from "zod";

const Note = z.object({ title: z.string(), body: z.string() });
type Note = z.infer<typeof Note>;

// The notes a new server starts with, as notes 1 and 2.
const SAMPLES: readonly Note[] = [
  { title: "Groceries", body: "milk, eggs, bread" },
  { title: "Ideas", body: "a wiretap for MCP" },
];

// A note's key: its id zero-padded, so the store's key order is the order notes were added.
const noteKey = (id: number) => `note:${String(id).padStart(10, "0")}`;
const idOf = (key: string) => String(Number(key.slice("note:".length)));

/** Every note, oldest first, a page of the store at a time. */
async function allNotes(store: Store): Promise<{ id: string; note: Note }[]> {
  const notes: { id: string; note: Note }[] = [];
  let cursor: string | undefined;
  do {
    const page = await store.list({ prefix: "note:", schema: Note, limit: 1000, ...(cursor ? { cursor } : {}) });
    for (const { key, value } of page.items) notes.push({ id: idOf(key), note: value });
    cursor = page.nextCursor;
  } while (cursor);
  return notes;
}

/**
 * A small server written with core's plain definitions (no decorators): notes kept in the server's store
 * (`ctx.store`), so every process sharing its engine (Redis) reads the same notes. `options`: server options beyond
 * its own (an engine, a shared stateKey).
 */
export function createQuickstartServer(options: Partial<ServerOptions> = {}) {
  const server = createServer({
    ...options,
    name: "quickstart",
    version: "0.1.0",
    title: "Toolsmith quickstart",
    instructions: "Notes kept in the server's store: add_note to write one, notes://{id} to read one.",
  });
  // The samples, written once per store: by the first process that needs them, never again (not even when removed).
  let seeding: Promise<void> | undefined;
  const seeded = (store: Store) => {
    seeding ??= (async () => {
      if (await store.get("seeded")) return;
      for (const [index, note] of SAMPLES.entries()) await store.update(noteKey(index + 1), (old) => old ?? note);
      await store.update("next-id", (last: number | undefined) => Math.max(last ?? 0, SAMPLES.length));
      await store.set("seeded", true);
    })().catch((error: unknown) => {
      seeding = undefined;
      throw error;
    });
    return seeding;
  };

  // Each registration returns a live handle (enable, disable, update, remove); this server keeps none.
  server.tool({
    name: "add",
    description: "Add two numbers.",
    input: { a: z.number().describe("the first addend"), b: z.number().describe("the second addend") },
    annotations: { readOnlyHint: true },
    handler: ({ a, b }) => a + b,
  });
  server.tool({
    name: "add_note",
    title: "Add a note",
    description: "Store a note and return its id.",
    // Bounded as the store's values are not: a note past them would be refused only when written, its id taken.
    input: z.object({ title: z.string().min(1).max(200), body: z.string().max(100_000) }),
    output: z.object({ id: z.string(), count: z.number().int() }),
    handler: async ({ title, body }, ctx) => {
      await seeded(ctx.store);
      // An id no other process gives: the counter's atomic update, then the note under it.
      const id = (await ctx.store.update("next-id", (last: number | undefined) => (last ?? 0) + 1)) as number;
      await ctx.store.set(noteKey(id), { title, body });
      return { id: String(id), count: (await allNotes(ctx.store)).length };
    },
  });
  server.tool({
    name: "fail",
    description: "Always fails, to show how a tool error reaches the model.",
    handler: () => {
      throw new Error("this tool always fails");
    },
  });
  server.resource({
    uri: "notes://all",
    name: "all-notes",
    description: "Every note's id and title.",
    mimeType: "text/plain",
    handler: async (ctx) => {
      await seeded(ctx.store);
      return (await allNotes(ctx.store)).map(({ id, note }) => `${id}: ${note.title}`).join("\n");
    },
  });
  server.resource({
    uriTemplate: "notes://{id}",
    name: "note",
    description: "One note by id.",
    mimeType: "application/json",
    list: async (ctx) => {
      await seeded(ctx.store);
      return (await allNotes(ctx.store)).map(({ id, note }) => ({ uri: `notes://${id}`, name: note.title }));
    },
    handler: async ({ id }, ctx) => {
      await seeded(ctx.store);
      return typeof id === "string" && /^[1-9]\d{0,9}$/.test(id) ? ctx.store.get(noteKey(Number(id)), Note) : undefined;
    },
  });
  server.prompt({
    name: "summarise",
    description: "Ask for a summary of the notes about a topic.",
    args: { topic: z.string().describe("what the summary is about"), tone: z.string().optional() },
    handler: async ({ topic, tone }, ctx) => {
      await seeded(ctx.store);
      const lines = (await allNotes(ctx.store)).map(({ note }) => `- ${note.title}: ${note.body}`);
      return `Summarise my notes about ${topic}${tone ? ` in a ${tone} tone` : ""}:\n${lines.join("\n")}`;
    },
  });
  return server;
}
