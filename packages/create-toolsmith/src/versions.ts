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

/** What a Bun project types `Bun.serve` with, and what serves and deploys a Worker (this package's own pins). */
export const RUNTIME_VERSIONS = {
  "@types/bun": "1.4.5",
  wrangler: "4.164.0",
} as const;

/** What a project's tracing set-up installs (`--otel`): the versions @toolsmith/otel's README names (a test checks). */
export const OTEL_VERSIONS = {
  "@opentelemetry/api": "1.9.1",
  "@opentelemetry/context-async-hooks": "2.12.1",
  "@opentelemetry/core": "2.12.1",
  "@opentelemetry/exporter-trace-otlp-http": "0.223.1",
  "@opentelemetry/resources": "2.12.1",
  "@opentelemetry/sdk-trace": "2.12.1",
} as const;

/** The Toolsmith packages a generated project may depend on (`--from` packs every publishable one). */
export type ToolsmithPackage =
  | "@toolsmith/core"
  | "@toolsmith/decorators"
  | "@toolsmith/transport-stdio"
  | "@toolsmith/transport-http"
  | "@toolsmith/vitest"
  | "@toolsmith/cli"
  | "@toolsmith/redis"
  | "@toolsmith/otel"
  | "@toolsmith/auth";
