// The @example blocks of core's store (context/store.ts): compiled by `pnpm typecheck`, copied into the TSDoc by
// scripts/sync-examples.mjs.
import type { Server } from "@toolsmith/core";
import { z } from "zod";

export function notes(server: Server): void {
  //#region Store
  server.tool({
    name: "add_note",
    description: "Keep a note",
    input: { text: z.string() },
    handler: async ({ text }, ctx) => {
      const count = await ctx.store.update("notes:count", (n: number | undefined) => (n ?? 0) + 1);
      await ctx.store.set(`notes:${String(count).padStart(8, "0")}`, { text });
      return `note ${count} kept`;
    },
  });
  //#endregion Store
}

const Note = z.object({ text: z.string() });

export function mine(server: Server): void {
  //#region ContextStore
  server.tool({
    name: "my_notes",
    description: "The caller's own notes",
    handler: async (_args, ctx) => {
      const page = await ctx.store.user.list({ prefix: "notes:", schema: Note, limit: 50 });
      return page.items.map(({ value }) => value.text).join("\n");
    },
  });
  //#endregion ContextStore
}

export function board(server: Server): void {
  //#region storeKey
  server.resource({
    uri: "board://today",
    storeKey: "board",
    handler: async () => JSON.stringify((await server.store.get("board")) ?? {}),
  });
  //#endregion storeKey
  //#region templateStoreKey
  server.resource({
    uriTemplate: "notes://{id}",
    storeKey: { prefix: "note:", uri: (key) => `notes://${key.slice("note:".length)}` },
    handler: async ({ id }) => JSON.stringify((await server.store.get(`note:${id}`)) ?? null),
  });
  //#endregion templateStoreKey
}
