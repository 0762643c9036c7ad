import { expect, it } from "vitest";
import { fixture, runVitest } from "./run-vitest.test-util.js";

it("a resource that throws in an in-memory test shows its own error and line in vitest's failure output", async () => {
  const { status, output } = await runVitest(fixture("cause"));
  expect(status).toBe(1);
  expect(output).toContain("McpError: Internal error");
  expect(output).toMatch(/Caused by: TypeError: no issue store configured\n.*issues\.test\.ts:11:13/);
});
