import { createServer, type ServerOptions } from "@toolsmith/core";
import { z } from "zod";

/**
 * A small server written with core's plain definitions (no decorators): notes kept in memory. `options`: server
 * options beyond its own (an engine, a shared stateKey).
 */
export function createQuickstartServer(options: Partial<ServerOptions> = {}) {
  const notes = new Map<string, { title: string; body: string }>([
    ["1", { title: "Groceries", body: "milk, eggs, bread" }],
    ["2", { title: "Ideas", body: "a wiretap for MCP" }],
  ]);

  const server = createServer({
    ...options,
    name: "quickstart",
    version: "0.1.0",
    title: "Toolsmith quickstart",
    instructions: "Notes kept in memory: add_note to write one, notes://{id} to read one.",
  });
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
    input: z.object({ title: z.string().min(1), body: z.string() }),
    output: z.object({ id: z.string(), count: z.number().int() }),
    handler: ({ title, body }) => {
      const id = String(notes.size + 1);
      notes.set(id, { title, body });
      return { id, count: notes.size };
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
    handler: () => [...notes].map(([id, note]) => `${id}: ${note.title}`).join("\n"),
  });
  server.resource({
    uriTemplate: "notes://{id}",
    name: "note",
    description: "One note by id.",
    mimeType: "application/json",
    list: () => [...notes].map(([id, note]) => ({ uri: `notes://${id}`, name: note.title })),
    handler: ({ id }) => (typeof id === "string" ? notes.get(id) : undefined),
  });
  server.prompt({
    name: "summarise",
    description: "Ask for a summary of the notes about a topic.",
    args: { topic: z.string().describe("what the summary is about"), tone: z.string().optional() },
    handler: ({ topic, tone }) =>
      `Summarise my notes about ${topic}${tone ? ` in a ${tone} tone` : ""}:\n${[...notes.values()].map((n) => `- ${n.title}: ${n.body}`).join("\n")}`,
  });
  return server;
}
