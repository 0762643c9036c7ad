import { describe, expect, it } from "vitest";
import { fixture, runVitest } from "./run-vitest.test-util.js";

describe("toolsmith() in a user's vitest.config.ts", () => {
  it("loads TC39-decorated source, and a failure points at the line in the .ts file", async () => {
    const { status, output } = await runVitest(fixture("tc39"));
    expect(status).toBe(1);
    expect(output).toMatch(/✓ greeter\.test\.ts \(1 test\)/);
    // A failing assertion in a decorated test file, and a throw inside a decorated method of greeter.ts.
    expect(output).toContain("❯ wrong.test.ts:15:29");
    expect(output).toContain("expected 1 to be 2");
    expect(output).toContain("❯ Grumpy.refuse greeter.ts:14:11");
    expect(output).toMatch(/Tests\s+2 failed \| 1 passed \(3\)/);
  });

  it("leaves files under an experimentalDecorators tsconfig to vite, which emits their decorator metadata", async () => {
    const { status, output } = await runVitest(fixture("legacy"));
    expect(output).toMatch(/✓ calc\.test\.ts \(1 test\)/);
    expect(status).toBe(0);
  });

  it("explains a TC39 import in a project that lacks the plugin", async () => {
    const { status, output } = await runVitest(fixture("projects"));
    expect(status).toBe(1);
    expect(output).toMatch(/✓ \|with\| with\/greeter\.test\.ts/);
    expect(output).toContain(
      "SyntaxError: Invalid or unexpected token: without/greeter.ts:5:3 uses a TC39 decorator, which vite does not compile. " +
        'Add the Toolsmith plugin to vitest.config.ts: import { toolsmith } from "@toolsmith/vitest" and set plugins: [toolsmith()].',
    );
  });
});
