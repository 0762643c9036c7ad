// The @example blocks of @toolsmith/transport-http: compiled by `pnpm typecheck`, copied into the TSDoc by
// scripts/sync-examples.mjs.
import type { Servable } from "@toolsmith/core/transport";
import { createHttpHandler, forwardedFor, listen, type Routes } from "@toolsmith/transport-http";

// Bun's own types are not installed here: what the example needs of Bun.serve.
declare const Bun: { serve(options: { port: number; fetch: (request: Request) => Promise<Response> }): unknown };

export async function serve(notes: Servable): Promise<void> {
  //#region listen
  await listen(notes, { port: 3000 }); // http://127.0.0.1:3000/mcp
  //#endregion listen
}

export async function behindProxy(server: Servable): Promise<void> {
  //#region forwardedFor
  await listen(server, { host: "10.0.0.5", allowedHosts: ["mcp.example.com"], remoteAddress: forwardedFor() });
  //#endregion forwardedFor
}

export function ownRoutes(): Routes {
  //#region Routes
  const routes: Routes = {
    "GET /status": () => Response.json({ up: true }),
    "POST /hooks/github": { anyHost: true, handler: async (request) => new Response(await request.text()) },
  };
  //#endregion Routes
  return routes;
}

export function onBun(notes: Servable): void {
  //#region createHttpHandler
  const handle = createHttpHandler(notes);
  Bun.serve({ port: 3000, fetch: handle });
  //#endregion createHttpHandler
}
