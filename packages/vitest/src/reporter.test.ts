import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { fixture, runVitest } from "./run-vitest.test-util.js";

const reporter = fileURLToPath(new URL("./reporter.ts", import.meta.url));

describe("a TC39-decorated import without the plugin", () => {
  it("is a bare SyntaxError with no file or line when nothing of Toolsmith's is configured", async () => {
    const { status, output } = await runVitest(fixture("no-plugin"));
    expect(status).toBe(1);
    expect(output).toMatch(/SyntaxError: Invalid or unexpected token\n/);
    expect(output).not.toContain("greeter.ts");
  });

  it("names the file and the plugin to add when the reporter is given on the command line", async () => {
    const { status, output } = await runVitest(fixture("no-plugin"), ["--reporter=default", `--reporter=${reporter}`]);
    expect(status).toBe(1);
    expect(output).toContain("SyntaxError: Invalid or unexpected token: greeter.ts:5:3 uses a TC39 decorator");
    expect(output).toContain("plugins: [toolsmith()]");
  });
});
