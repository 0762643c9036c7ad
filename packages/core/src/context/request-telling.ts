import { isLogLevel, type LogLevel, levelPasses } from "../protocol/log-levels.js";
import type { RevisionFeatures } from "../protocol/revision.js";
import { MetaKey } from "../protocol/versions.js";
import type { RequestId } from "../wire/json-rpc.js";
import type { InputRound } from "./ask.js";
import { logData } from "./client-log.js";
import type { ContextPort } from "./context-init.js";
import { reportedBefore } from "./keep.js";

// What a request's client is told while it is served (and, in the handshake era, after): the handler's progress and
// its log messages, each only when the client asked for them, on the request's own stream or the connection's.

/** The request whose client is told, as its context has it. */
export interface Telling {
  readonly requestId: RequestId;
  readonly tag: unknown;
  readonly revision: RevisionFeatures;
  readonly meta: Readonly<Record<string, unknown>> | undefined;
  readonly inputs: InputRound | undefined;
  readonly port: ContextPort;
  /** The request has been answered. */
  readonly done: boolean;
}

/** `notifications/progress` for `done`, when the request has a progress token and is not answered yet. */
export function tellProgress(request: Telling, done: number, total?: number, message?: string): void {
  const token = request.meta?.progressToken;
  if (request.done || (typeof token !== "string" && typeof token !== "number")) return;
  // 2026-07-28: what an earlier round of this request reported is not reported again.
  if (request.inputs !== undefined && reportedBefore(request.inputs, done)) return;
  const params: Record<string, unknown> = { progressToken: token, progress: done };
  if (total !== undefined) params.total = total;
  if (message !== undefined) params.message = message;
  request.port.notify("notifications/progress", params, request.requestId, request.tag);
}

/** `notifications/message`, when `level` passes the level the client set (or this request asked, in 2026-07-28). */
export function tellLog(
  request: Telling,
  level: LogLevel,
  first: unknown,
  second: unknown,
  logger: string | undefined,
): void {
  let threshold: LogLevel | undefined;
  if (request.revision.logLevelFrom === "set-level") {
    threshold = request.port.logLevel ?? "debug";
  } else {
    // 2026-07-28: only when this request asked, only on its own stream.
    const asked = request.meta?.[MetaKey.logLevel];
    threshold = isLogLevel(asked) && !request.done ? asked : undefined;
  }
  if (threshold === undefined || !levelPasses(level, threshold)) return;
  const params: Record<string, unknown> = { level, data: logData(first, second) };
  if (logger !== undefined) params.logger = logger;
  // After the reply a handshake-era log belongs to the connection, no longer to the request.
  if (request.done) request.port.notify("notifications/message", params, undefined);
  else request.port.notify("notifications/message", params, request.requestId, request.tag);
}
