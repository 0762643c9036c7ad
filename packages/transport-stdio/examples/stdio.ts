// The @example blocks of @toolsmith/transport-stdio: compiled by `pnpm typecheck`, copied into the TSDoc by
// scripts/sync-examples.mjs.
import { createServer, type ToolDefinition } from "@toolsmith/core";
import { serveStdio } from "@toolsmith/transport-stdio";
import { releaseStdout } from "@toolsmith/transport-stdio/redirect-stdout";

export function either(): void {
  //#region releaseStdout
  if (process.argv.includes("--http")) releaseStdout();
  //#endregion releaseStdout
}

export async function serve(echo: ToolDefinition): Promise<void> {
  //#region serveStdio
  const server = createServer({ name: "demo", version: "1.0.0" });
  server.tool(echo);
  await serveStdio(server).closed;
  //#endregion serveStdio
}
