// The @example block of the vitest plugin, a whole vitest.config.ts: compiled by `pnpm typecheck`, copied into
// the TSDoc by scripts/sync-examples.mjs.
//#region toolsmith
import { toolsmith } from "@toolsmith/vitest";
import { defineConfig } from "vitest/config";

export default defineConfig({ plugins: [toolsmith()] });
//#endregion toolsmith
