import { defaultServerConditions } from "vite";
import { defineConfig } from "vitest/config";

// Tests run on src through the "@toolsmith/source" export condition: no build step, no path maps.
const conditions = ["@toolsmith/source", ...defaultServerConditions];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    include: [
      "packages/*/src/**/*.test.ts",
      "examples/*/src/**/*.test.ts",
      "examples/*/test/**/*.test.ts",
      "tests/*/src/**/*.test.ts",
    ],
    setupFiles: ["./scripts/fail-on-console.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    reporters: ["default", "./scripts/summary-reporter.ts"],
  },
});
