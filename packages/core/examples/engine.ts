// The @example blocks of core's engine/ and engine-suite/ layers: compiled by `pnpm typecheck`, copied into the
// TSDoc by scripts/sync-examples.mjs.

import { createServer, type Server } from "@toolsmith/core";
import { createMemoryEngine } from "@toolsmith/core/engine";
import { engineSuite } from "@toolsmith/core/engine-suite";

export function withEngine(): Server {
  //#region createMemoryEngine
  const engine = createMemoryEngine({ eventsPerSession: 1024 });
  const server = createServer({ name: "notes", version: "1.0.0", engine });
  //#endregion createMemoryEngine
  return server;
}

export function memorySuite(): void {
  //#region engineSuite
  engineSuite("memory", async () => {
    const engine = createMemoryEngine();
    return { engines: [engine], cleanup: async () => engine.close() };
  });
  //#endregion engineSuite
}
