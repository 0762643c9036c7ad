import { createServer, type ServerOptions } from "@toolsmith/core";
import { z } from "zod";

/** The scopes this server's tools ask for: reading is what everyone signed in may do, writing is asked for apart. */
export const SCOPES = ["notes:read", "notes:write"] as const;

/**
 * Notes, one list per person signed in. Every call needs `notes:read` (a client asks for it first, as the 401 names
 * it); `add_note` needs `notes:write` besides (a client steps up when it calls it). Each handler reads the caller
 * from `ctx.auth`, the principal the sign-in verified.
 */
export function createNotesServer(options: Partial<ServerOptions> = {}) {
  const notes = new Map<string, string[]>();
  const server = createServer({
    ...options,
    name: "sign-in",
    version: "0.1.0",
    scopes: ["notes:read"],
    instructions: "Notes kept per person signed in: list_notes to read yours, add_note to write one.",
  });
  server.tool({
    name: "whoami",
    description: "Who you are signed in as, and what you may do.",
    annotations: { readOnlyHint: true },
    handler: (_input, ctx) => ({ subject: ctx.auth?.subject ?? "", scopes: [...(ctx.auth?.scopes ?? [])] }),
  });
  server.tool({
    name: "list_notes",
    description: "Your notes.",
    annotations: { readOnlyHint: true },
    handler: (_input, ctx) => ({ notes: notes.get(ctx.auth?.subject ?? "") ?? [] }),
  });
  server.tool({
    name: "add_note",
    description: "Write a note to your list.",
    scopes: ["notes:write"],
    input: { text: z.string().min(1).max(1000) },
    handler: ({ text }, ctx) => {
      const mine = notes.get(ctx.auth?.subject ?? "") ?? [];
      mine.push(text);
      notes.set(ctx.auth?.subject ?? "", mine);
      return { count: mine.length };
    },
  });
  return server;
}
