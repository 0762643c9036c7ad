import { resolve } from "node:path";
import type { Plugin } from "vite";
import type { VitestPluginContext } from "vitest/node";
import { createDialectLookup, type DialectLookup } from "./dialect.js";
import { lowerDecorators } from "./lower.js";
import DecoratorErrorReporter from "./reporter.js";

/** Options of the `toolsmith()` vitest plugin. */
export interface ToolsmithOptions {
  /** Explain a test file that fails to parse because of TC39 decorators vite left in (default: true). */
  explainErrors?: boolean;
}

// vitest's own hook, declared here rather than through vitest/config's augmentation of vite's Plugin.
interface VitestPlugin {
  configureVitest(context: VitestPluginContext): void;
}

const TYPESCRIPT = /\.[cm]?tsx?$/;
const MAYBE_DECORATED = /@[\w$(]/;

/**
 * A vitest (vite) plugin that lets tests import TC39-decorated TypeScript from source: esbuild lowers standard
 * decorators in each file whose tsconfig leaves `experimentalDecorators` off, with a source map into the file;
 * files whose tsconfig turns it on are left to vite's own transform, which compiles legacy decorators.
 * @example
 * ```ts source="examples/vitest-config.ts#toolsmith"
 * import { toolsmith } from "@toolsmith/vitest";
 * import { defineConfig } from "vitest/config";
 *
 * export default defineConfig({ plugins: [toolsmith()] });
 * ```
 */
export function toolsmith(options: ToolsmithOptions = {}): Plugin & VitestPlugin {
  let lookup: DialectLookup = createDialectLookup();
  return {
    name: "toolsmith:tc39-decorators",
    // Before vite:oxc, which would keep TC39 decorators as they are.
    enforce: "pre",
    configResolved(config) {
      lookup = createDialectLookup(config.tsconfig === undefined ? undefined : resolve(config.root, config.tsconfig));
    },
    configureServer(server) {
      server.watcher.on("change", (file) => {
        if (lookup.reads(file)) lookup.clear();
      });
    },
    configureVitest({ vitest }) {
      // Once per run, for every project, including any without this plugin.
      const reporters = vitest.config.reporters as unknown[];
      if (options.explainErrors !== false && !reporters.some((r) => r instanceof DecoratorErrorReporter)) {
        reporters.push(new DecoratorErrorReporter());
      }
    },
    async transform(code, id) {
      const file = id.replace(/[?#].*$/, "");
      if (!TYPESCRIPT.test(file) || file.includes("/node_modules/") || !MAYBE_DECORATED.test(code)) return;
      const { dialect, tsconfig } = lookup(file);
      if (dialect === "legacy") return;
      return lowerDecorators(code, file, tsconfig?.compilerOptions);
    },
  };
}
