// The @example block of the reporter, a whole vitest.config.ts for a project without the plugin: compiled by
// `pnpm typecheck`, copied into the TSDoc by scripts/sync-examples.mjs.
//#region DecoratorErrorReporter
import DecoratorErrorReporter from "@toolsmith/vitest/reporter";
import { defineConfig } from "vitest/config";

// or on the command line: vitest run --reporter=default --reporter=@toolsmith/vitest/reporter
export default defineConfig({ test: { reporters: ["default", new DecoratorErrorReporter()] } });
//#endregion DecoratorErrorReporter
