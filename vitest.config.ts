import { availableParallelism } from "node:os";
import { defaultServerConditions } from "vite";
import { defineConfig } from "vitest/config";
// The plugin from source, as users write `import { toolsmith } from "@toolsmith/vitest"`.
import { toolsmith } from "./packages/vitest/src/index.js";

// Tests run on src through the "@toolsmith/source" export condition: no build step, no path maps.
const conditions = ["@toolsmith/source", ...defaultServerConditions];
// The decorator suites' legacy run: the same test/*-suite.ts, compiled by vite with experimentalDecorators.
const legacyEntry = "packages/decorators/src/dialect-legacy.test.ts";

export default defineConfig({
  plugins: [toolsmith()],
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    setupFiles: ["./scripts/fail-on-console.ts", "./scripts/end-child-processes.ts"],
    // A backstop for a real hang only: each wait on a process inside a test has its own deadline (minutes, see
    // WAIT_MS in scripts/wait.ts) that names what it waited for.
    testTimeout: 15 * 60_000,
    hookTimeout: 15 * 60_000,
    pool: "forks",
    // Test files run side by side (each binds port 0 and writes only in its own temp folders). Most of their time
    // is spent waiting on the processes they start, so even 2 cores run 2 files at once (vitest's default: 1).
    maxWorkers: Math.max(2, availableParallelism()),
    reporters: ["default", "./scripts/summary-reporter.ts"],
    projects: [
      {
        extends: true,
        test: {
          name: "tc39",
          include: [
            "packages/*/src/**/*.test.ts",
            "scripts/*.test.ts",
            "examples/*/src/**/*.test.ts",
            "examples/*/test/**/*.test.ts",
            "tests/*/src/**/*.test.ts",
          ],
          exclude: [legacyEntry],
        },
      },
      {
        extends: true,
        // vite's `tsconfig` option: this one file, with experimentalDecorators, for every file of the project.
        tsconfig: "packages/decorators/test/tsconfig.legacy.json",
        test: { name: "legacy", include: [legacyEntry] },
      },
    ],
  },
});
