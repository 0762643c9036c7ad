import {
  createMcpHandler,
  hostHeaderValidationResponse,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  McpServer,
  originValidationResponse,
  ResourceTemplate,
} from "@modelcontextprotocol/server";
import { z } from "zod";

// The quickstart (examples/quickstart/src/server.ts, worker.ts) written with @modelcontextprotocol/server 2.4.0, as a
// Worker module, for bench/bundle.mjs to bundle as it bundles Toolsmith's: the same tools (add, add_note, fail), the
// same resources and prompt, on the SDK's web-standard entry, `createMcpHandler(factory)` (a fresh McpServer per
// request, 2025-era traffic served statelessly), behind the Host/Origin checks its docs put in front (Toolsmith's
// handler makes them itself). Notes live in this module's memory, as the SDK has no store.
const Note = z.object({ title: z.string(), body: z.string() });
const notes = new Map([
  ["1", { title: "Groceries", body: "milk, eggs, bread" }],
  ["2", { title: "Ideas", body: "a wiretap for MCP" }],
]);
let lastId = notes.size;

const factory = () => {
  const server = new McpServer(
    { name: "quickstart", version: "0.1.0", title: "Toolsmith quickstart" },
    { instructions: "Notes kept in the server's store: add_note to write one, notes://{id} to read one." },
  );
  server.registerTool(
    "add",
    {
      description: "Add two numbers.",
      inputSchema: z.object({
        a: z.number().describe("the first addend"),
        b: z.number().describe("the second addend"),
      }),
      annotations: { readOnlyHint: true },
    },
    async ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }] }),
  );
  server.registerTool(
    "add_note",
    {
      title: "Add a note",
      description: "Store a note and return its id.",
      inputSchema: z.object({ title: z.string().min(1).max(200), body: z.string().max(100_000) }),
      outputSchema: z.object({ id: z.string(), count: z.number().int() }),
    },
    async ({ title, body }) => {
      const id = String(++lastId);
      notes.set(id, Note.parse({ title, body }));
      const output = { id, count: notes.size };
      return { content: [{ type: "text", text: JSON.stringify(output) }], structuredContent: output };
    },
  );
  server.registerTool("fail", { description: "Always fails, to show how a tool error reaches the model." }, () => {
    throw new Error("this tool always fails");
  });
  server.registerResource(
    "all-notes",
    "notes://all",
    { description: "Every note's id and title.", mimeType: "text/plain" },
    async (uri) => ({
      contents: [{ uri: uri.href, text: [...notes].map(([id, note]) => `${id}: ${note.title}`).join("\n") }],
    }),
  );
  server.registerResource(
    "note",
    new ResourceTemplate("notes://{id}", {
      list: async () => ({ resources: [...notes].map(([id, note]) => ({ uri: `notes://${id}`, name: note.title })) }),
    }),
    { description: "One note by id.", mimeType: "application/json" },
    async (uri, { id }) => {
      const note = typeof id === "string" ? notes.get(id) : undefined;
      if (note === undefined) throw new Error(`No note ${uri.href}`);
      return { contents: [{ uri: uri.href, mimeType: "application/json", text: JSON.stringify(note) }] };
    },
  );
  server.registerPrompt(
    "summarise",
    {
      description: "Ask for a summary of the notes about a topic.",
      argsSchema: z.object({ topic: z.string().describe("what the summary is about"), tone: z.string().optional() }),
    },
    ({ topic, tone }) => {
      const lines = [...notes.values()].map((note) => `- ${note.title}: ${note.body}`);
      const text = `Summarise my notes about ${topic}${tone ? ` in a ${tone} tone` : ""}:\n${lines.join("\n")}`;
      return { messages: [{ role: "user", content: { type: "text", text } }] };
    },
  );
  return server;
};

const handler = createMcpHandler(factory);

export default {
  fetch(request) {
    const rejected =
      hostHeaderValidationResponse(request, localhostAllowedHostnames()) ??
      originValidationResponse(request, localhostAllowedOrigins());
    return rejected ?? handler.fetch(request);
  },
};
