// The @example blocks of @toolsmith/openapi: compiled by `pnpm typecheck`, copied into the TSDoc by
// scripts/sync-examples.mjs.
import { createServer } from "@toolsmith/core";
import { openApiServer } from "@toolsmith/openapi";

export async function mounted(spec: string): Promise<void> {
  //#region openApiServer
  const petstore = await openApiServer({ document: spec, baseUrl: "https://petstore.example/v1" });
  const app = createServer({ name: "app", version: "1.0.0" }).mount("pets", petstore);
  //#endregion openApiServer
  void app;
}
