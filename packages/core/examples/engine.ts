// The @example blocks of core's engine/ layer: compiled by `pnpm typecheck`, copied into the TSDoc by
// scripts/sync-examples.mjs. engineSuite is a test helper, not exported.
import { createMemoryEngine, createServer, type Server } from "@toolsmith/core";
import { engineSuite } from "../src/engine/engine-suite.test-util.js";

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
