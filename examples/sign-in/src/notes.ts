import { createServer, type ServerOptions } from "@toolsmith/core";
import { z } from "zod";

/** The scopes this server's tools ask for: reading is what everyone signed in may do, writing is asked for apart. */
export const SCOPES = ["notes:read", "notes:write"] as const;

/** The most notes one person keeps. */
const MAX_NOTES = 100;
const Notes = z.array(z.string());

/**
 * Notes, one list per person signed in. Every call needs `notes:read` (a client asks for it first, as the 401 names
 * it); `add_note` needs `notes:write` besides (a client steps up when it calls it). Each person's list is one value
 * of their own store (`ctx.store.user`, bound to the subject the sign-in verified, so nobody reads another's), kept
 * by the engine: every process sharing a Redis engine has the same lists.
 */
export function createNotesServer(options: Partial<ServerOptions> = {}) {
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
    handler: async (_input, ctx) => ({ notes: (await ctx.store.user.get("notes", Notes)) ?? [] }),
  });
  server.tool({
    name: "add_note",
    description: "Write a note to your list.",
    scopes: ["notes:write"],
    input: { text: z.string().min(1).max(1000) },
    handler: async ({ text }, ctx) => {
      // Atomic: two of a person's adds at once, through two processes, both count.
      const mine = await ctx.store.user.update(
        "notes",
        (old) => {
          if ((old?.length ?? 0) >= MAX_NOTES) throw new Error(`You keep ${MAX_NOTES} notes, the most one person may`);
          return [...(old ?? []), text];
        },
        { schema: Notes },
      );
      return { count: mine?.length ?? 0 };
    },
  });
  return server;
}
