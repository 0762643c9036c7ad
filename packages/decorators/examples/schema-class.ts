// The @example block of schemaClass: compiled by `pnpm typecheck` with legacy decorators only (the input schema
// comes from `design:paramtypes`), copied into the TSDoc by scripts/sync-examples.mjs.
import { McpServer, schemaClass, tool } from "@toolsmith/decorators";
import { z } from "zod";

export function adder(): McpServer {
  //#region schemaClass
  class AddInput extends schemaClass(z.object({ a: z.number(), b: z.number() })) {}
  class Calc extends McpServer {
    @tool({ description: "Add" }) add({ a, b }: AddInput) {
      return a + b;
    }
  }
  //#endregion schemaClass
  return new Calc();
}
