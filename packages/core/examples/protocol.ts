// The @example blocks of core's protocol/ layer: compiled by `pnpm typecheck`, copied into the TSDoc by
// scripts/sync-examples.mjs.
import { readFile } from "node:fs/promises";
import { type ContentBlock, image, text } from "@toolsmith/core";

export async function redDot(): Promise<ContentBlock[]> {
  //#region image
  return [text("A red dot:"), image(await readFile("dot.png"), "image/png")];
  //#endregion image
}
