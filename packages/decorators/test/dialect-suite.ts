// The decorator suites (test/*-suite.ts) run twice from source: TC39 decorators lowered by @toolsmith/vitest, and
// legacy experimentalDecorators + emitDecoratorMetadata compiled by vite (tsconfig.legacy.json), imported by
// src/dialect-tc39.test.ts and src/dialect-legacy.test.ts. Both must pass them unchanged; tsconfig.tc39.json and
// tsconfig.legacy.json type-check them in each dialect. This one checks that a run is in the dialect it names.
import { McpServer, tool } from "@toolsmith/decorators";
import { describe, expect, it } from "vitest";

export const DIALECT: string = (globalThis as { __toolsmithDialect?: string }).__toolsmithDialect ?? "unknown";

describe(`decorators (${DIALECT})`, () => {
  it("runs in the dialect it says it does", () => {
    class Probe extends McpServer {
      @tool({ description: "probe" })
      probe() {}
    }
    // TC39 decorators leave their metadata on the class; legacy ones leave none there.
    const tc39 = Object.hasOwn(Probe, Symbol.metadata) && Probe[Symbol.metadata] !== null;
    expect(tc39 ? "TC39 standard decorators" : "legacy experimentalDecorators").toBe(DIALECT);
  });
});
