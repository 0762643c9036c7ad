import type { Reporter, TestModule, Vitest } from "vitest/node";
import { explainDecoratorSyntaxError } from "./explain.js";

/**
 * Rewrites the bare `SyntaxError: Invalid or unexpected token` of a test file that imports TC39-decorated
 * source vite did not compile into a message naming the file and the plugin to add. `toolsmith()` installs it;
 * without the plugin, name it in `reporters` or on the command line.
 * @example
 * ```ts source="examples/reporter-config.ts#DecoratorErrorReporter"
 * import DecoratorErrorReporter from "@toolsmith/vitest/reporter";
 * import { defineConfig } from "vitest/config";
 *
 * // or on the command line: vitest run --reporter=default --reporter=@toolsmith/vitest/reporter
 * export default defineConfig({ test: { reporters: ["default", new DecoratorErrorReporter()] } });
 * ```
 */
export default class DecoratorErrorReporter implements Reporter {
  #root = process.cwd();

  onInit(vitest: Vitest): void {
    this.#root = vitest.config.root;
  }

  // Before the run's end, when the default reporter prints each file's errors.
  onTestModuleEnd(testModule: TestModule): void {
    for (const error of testModule.errors()) explainDecoratorSyntaxError(error, this.#root);
  }
}
