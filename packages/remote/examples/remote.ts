// The @example blocks of @toolsmith/remote: compiled by `pnpm typecheck`, copied into the TSDoc by
// scripts/sync-examples.mjs.
import { createServer } from "@toolsmith/core";
import { createRemote } from "@toolsmith/remote";

export async function mounted(): Promise<void> {
  //#region createRemote
  const weather = await createRemote({ url: "https://weather.example/mcp" });
  const app = createServer({ name: "gateway", version: "1.0.0" }).mount("weather", weather.server);
  //#endregion createRemote
  void app;
}
