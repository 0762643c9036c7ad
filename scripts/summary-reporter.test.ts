import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import { gone, run } from "./child-processes.js";

const vitest = join(dirname(createRequire(import.meta.url).resolve("vitest/package.json")), "vitest.mjs");

/** vitest on one of the fixtures here, in a child process: its exit code and its closing lines. */
async function vitestOn(fixture: string): Promise<{ code: number | null; lines: string[] }> {
  const root = fileURLToPath(new URL(`./fixtures/${fixture}`, import.meta.url));
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("VITEST")));
  const { code, stdout } = await run(process.execPath, [vitest, "run", "--root", root], {
    cwd: root,
    env: { ...env, NO_COLOR: "1" },
  });
  return { code, lines: stdout.trimEnd().split("\n") };
}

it("counts a test file that does not load as a failure in the closing line", async () => {
  const { code, lines } = await vitestOn("summary");
  expect(code).toBe(1);
  expect(lines.at(-2)).toBe(
    "failed outside its tests (did not load?): does-not-load.test.ts: Error: this file does not load",
  );
  expect(lines.at(-1)).toBe("2 passed, 1 failed, 1 skipped");
});

it("fails the run for a process that outlived the tests, and ends it", async () => {
  const { code, lines } = await vitestOn("leftover");
  expect(code).toBe(1);
  expect(lines.at(-1)).toBe("1 passed, 1 failed, 0 skipped");
  const note = /^outlived the tests \(killed now\): pid (\d+) (.*)$/.exec(lines.at(-2) ?? "");
  expect(note?.[2], lines.join("\n")).toContain("setInterval");
  await gone(Number(note?.[1]), "the forgotten process to be ended");
});
