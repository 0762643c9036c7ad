import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

const vitest = join(dirname(createRequire(import.meta.url).resolve("vitest/package.json")), "vitest.mjs");
const root = fileURLToPath(new URL("./fixtures/summary", import.meta.url));

it("counts a test file that does not load as a failure in the closing line", () => {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("VITEST")));
  const run = spawnSync(process.execPath, [vitest, "run", "--root", root], {
    cwd: root,
    env: { ...env, NO_COLOR: "1" },
    encoding: "utf8",
    timeout: 60_000,
  });
  expect(run.status).toBe(1);
  const lines = run.stdout.trimEnd().split("\n");
  expect(lines.at(-2)).toBe(
    "failed outside its tests (did not load?): does-not-load.test.ts: Error: this file does not load",
  );
  expect(lines.at(-1)).toBe("2 passed, 1 failed, 1 skipped");
});
