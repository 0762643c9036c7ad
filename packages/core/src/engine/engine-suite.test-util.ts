import { afterEach, describe } from "vitest";
import { engineSuiteBounds } from "./engine-suite-bounds.test-util.js";
import { engineSuiteDurable } from "./engine-suite-durable.test-util.js";
import type { MadeEngines, Opener } from "./engine-suite-helpers.test-util.js";
import { engineSuiteHostile } from "./engine-suite-hostile.test-util.js";
import { engineSuiteInOneProcess } from "./engine-suite-one.test-util.js";
import { engineSuiteTasks } from "./engine-suite-tasks.test-util.js";
import { engineSuiteTasksAcrossProcesses } from "./engine-suite-tasks-two.test-util.js";
import { engineSuiteAcrossProcesses } from "./engine-suite-two.test-util.js";

export type { MadeEngines } from "./engine-suite-helpers.test-util.js";

/**
 * The behaviours every engine must have, for an engine's own tests to run: `make` gives fresh engines of one server
 * (one, or several as several processes would hold); tests that need two processes skip themselves with one.
 * @example
 * ```ts source="examples/engine.ts#engineSuite"
 * engineSuite("memory", async () => {
 *   const engine = createMemoryEngine();
 *   return { engines: [engine], cleanup: async () => engine.close() };
 * });
 * ```
 */
export function engineSuite(name: string, make: () => Promise<MadeEngines>): void {
  describe(`engine suite: ${name}`, () => {
    let made: MadeEngines | undefined;
    let count: number | undefined;
    let server = { name: "" };
    afterEach(async () => {
      const current = made;
      made = undefined;
      await current?.cleanup();
    });
    const opener: Opener = {
      async open(options) {
        made = await make();
        count = made.engines.length;
        server = { name: `engine-suite-${crypto.randomUUID()}` };
        const starting = options?.start === "first" ? made.engines.slice(0, 1) : made.engines;
        for (const engine of starting) await engine.start(server);
        return made.engines;
      },
      server: () => server,
      async two(ctx, options) {
        if (count !== undefined && count < 2) ctx.skip();
        const engines = await opener.open(options);
        if (engines.length < 2) ctx.skip();
        return engines;
      },
    };
    engineSuiteInOneProcess(opener);
    engineSuiteHostile(opener);
    engineSuiteBounds(opener);
    engineSuiteAcrossProcesses(opener);
    engineSuiteTasks(opener);
    engineSuiteTasksAcrossProcesses(opener);
    engineSuiteDurable(opener);
  });
}
