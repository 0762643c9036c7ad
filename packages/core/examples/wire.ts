// The @example blocks of core's wire/ layer: compiled by `pnpm typecheck`, copied into the TSDoc by
// scripts/sync-examples.mjs.
import { DefinitionError, ErrorCode, McpError, type Server } from "@toolsmith/core";
import { errorLine, idText } from "@toolsmith/core/transport";

export function unknownTool(): never {
  //#region McpError
  throw new McpError(ErrorCode.InvalidParams, "Unknown tool: nope");
  //#endregion McpError
}

export function emptyName(server: Server): string | undefined {
  //#region DefinitionError
  try {
    server.tool({ name: "", description: "Nameless", handler: () => 1 });
  } catch (error) {
    if (error instanceof DefinitionError) return error.message; // it says what to change
    throw error;
  }
  //#endregion DefinitionError
  return undefined;
}

export function tooLarge(message: { id?: unknown }, line: string): void {
  //#region errorLine
  errorLine(idText(message.id, line), { code: ErrorCode.InvalidRequest, message: "Invalid request: too large" });
  //#endregion errorLine
}
