// The @example block of @toolsmith/otel: compiled by `pnpm typecheck`, copied into the TSDoc by
// scripts/sync-examples.mjs.
import type { Server } from "@toolsmith/core";
import { openTelemetry } from "@toolsmith/otel";

export function traced(server: Server): void {
  //#region openTelemetry
  server.use(openTelemetry());
  //#endregion openTelemetry
}
