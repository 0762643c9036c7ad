// The @example blocks of core's server/ layer: compiled by `pnpm typecheck`, copied into the TSDoc by
// scripts/sync-examples.mjs.
import { createServer, type Server } from "@toolsmith/core";
import { declaredScopes, type Servable, serverScopes } from "@toolsmith/core/transport";
import { z } from "zod";

export function notes(): Server {
  //#region createServer
  const server = createServer({ name: "notes", version: "1.0.0" });
  //#endregion createServer
  return server;
}

export function echo(): Server {
  //#region Server
  const server = createServer({ name: "demo", version: "1.0.0" });
  server.tool({ name: "echo", description: "Echo text", input: { text: z.string() }, handler: ({ text }) => text });
  //#endregion Server
  return server;
}

export function modules(gitHubTools: Servable): Server {
  //#region Server.mount
  const app = createServer({ name: "app", version: "1.0.0" }).mount("github", gitHubTools);
  //#endregion Server.mount
  return app;
}

export function challenge(server: Server): string {
  //#region serverScopes
  const challenge = `Bearer scope="${serverScopes(server).join(" ")}"`;
  //#endregion serverScopes
  return challenge;
}

export function metadata(server: Server): Record<string, unknown> {
  //#region declaredScopes
  const metadata = { scopes_supported: declaredScopes(server) };
  //#endregion declaredScopes
  return metadata;
}
