import { ErrorCode, errorLine } from "@toolsmith/core";

/** What a request running on a process that stopped is answered with, by another process. */
export const ORPHANED =
  "Internal error: the server process serving this request stopped before it answered; send it again";

/** The error response of request `id` (its JSON text) whose process stopped: the one answer such a request gets. */
export function orphanedLine(id: string): string {
  return errorLine(id, { code: ErrorCode.InternalError, message: ORPHANED });
}
