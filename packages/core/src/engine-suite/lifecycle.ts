import { describe, expect, it } from "vitest";
import type { EngineLifecycle } from "../engine/engine.js";
import { type MakeEngines, openerOf, TEST_TIMEOUT_MS } from "./helpers.js";

/**
 * What every engine does whatever roles it plays (`EngineLifecycle`): its processes told apart, a start that may be
 * asked again, a close that may be asked twice.
 */
export function lifecycleSuite(name: string, make: MakeEngines<EngineLifecycle>): void {
  describe(`lifecycle suite: ${name}`, { timeout: TEST_TIMEOUT_MS }, () => {
    const { open, two, server } = openerOf(make);
    describe("across processes", () => {
      it("tells its processes apart and says it is shared", async (ctx) => {
        const engines = await two(ctx);
        expect(new Set(engines.map((e) => e.node)).size).toBe(engines.length);
        for (const engine of engines) expect(engine.shared).toBe(true);
      });
    });

    describe("start and close", () => {
      it("starts again as often as asked, and closes twice without fault", async () => {
        const engines = await open();
        for (const engine of engines) await engine.start(server());
        for (const engine of engines) {
          await engine.close();
          await engine.close();
        }
      });
    });
  });
}
