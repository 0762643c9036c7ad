import { readFileSync } from "node:fs";

/**
 * The @toolsmith/* version a generated project depends on: this package's own, read at run time, as the publishable
 * packages are released together (one fixed group in .changeset/config.json; a test checks core's matches).
 */
export const TOOLSMITH_VERSION: string = (
  JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }
).version;

// What a generated project depends on besides: the versions this workspace itself builds and tests with (a test checks).

export const VERSIONS = {
  zod: "4.6.7",
  typescript: "7.0.2",
  vitest: "4.1.12",
  "@types/node": "20.19.43",
  "@biomejs/biome": "2.6.8",
} as const;

export const TOOLSMITH_PACKAGES = {
  "@toolsmith/core": "core",
  "@toolsmith/decorators": "decorators",
  "@toolsmith/transport-stdio": "transport-stdio",
  "@toolsmith/transport-http": "transport-http",
  "@toolsmith/vitest": "vitest",
  "@toolsmith/cli": "cli",
} as const;

export type ToolsmithPackage = keyof typeof TOOLSMITH_PACKAGES;
