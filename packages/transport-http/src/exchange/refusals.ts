import { ErrorCode } from "@toolsmith/core";
import { DEFAULT_RETRY_AFTER_SECONDS, isEngineUnavailable } from "@toolsmith/core/engine";
import { isPlainObject } from "@toolsmith/core/internal";
import { errorLine, httpStatusOf, serviceUnavailable } from "@toolsmith/core/transport";
import { answer, JSON_HEADERS, type Outgoing } from "./exchange.js";

// The answers the transport writes itself (core writes the rest): its refusals, with the HTTP status each gets, and
// its faults (the engine away, the server shutting down, a request whose process stopped).

/** True for a JSON-RPC request: a method and an id, so an answer is owed. */
export function isRequest(message: unknown): message is Record<string, unknown> & { method: string } {
  return isPlainObject(message) && typeof message.method === "string" && message.id !== undefined;
}

/** The transport's own JSON-RPC refusal; `id` is the request id's JSON text (`messageIdText`), null when none. */
export function refuse(status: number, id: string | null, code: number, message: string): Outgoing {
  return answer(status, errorLine(id ?? "null", { code, message }));
}

/**
 * The status of a 2026-07-28 reply core wrote, by its error code (undefined for a result) and, for a request the
 * engine could not serve, the seconds to wait (core's `httpStatusOf`: 503).
 */
export const statelessStatus = (code: number | undefined, wait?: number): number =>
  httpStatusOf(code, "stateless", wait);

/** The status of a handshake-era reply core wrote (see `statelessStatus`). */
export const handshakeStatus = (code: number | undefined, wait?: number): number =>
  httpStatusOf(code, "handshake", wait);

/** A 503's `Retry-After`: whole seconds, at least 1; the default wait for what is no number. */
export function retryAfter(seconds: unknown): number {
  return typeof seconds === "number" && Number.isFinite(seconds)
    ? Math.max(1, Math.ceil(seconds))
    : DEFAULT_RETRY_AFTER_SECONDS;
}

/** The 503 for a request (`id`: its id's JSON text, null without one) the engine (Redis) could not serve. */
export function unavailable(id: string | null, error: unknown, headers?: Readonly<Record<string, string>>): Outgoing {
  const retryAfterSeconds = retryAfter((error as { retryAfterSeconds?: unknown }).retryAfterSeconds);
  const body = errorLine(id ?? "null", serviceUnavailable(retryAfterSeconds));
  return { status: 503, headers: { ...JSON_HEADERS, ...headers, "retry-after": String(retryAfterSeconds) }, body };
}

/** Thrown where a request meets a handler whose `close()` has begun: answered by `shuttingDown`. */
export class ShuttingDown extends Error {}

/**
 * The 503 for new work (a session, a 2026-07-28 request, a session's request) once `close()` has begun: the client
 * retries, and its load balancer, which the health route told, sends it to another process.
 */
export function shuttingDown(id: string | null): Outgoing {
  const body = errorLine(id ?? "null", {
    code: ErrorCode.ServerError,
    message: "Service unavailable: this server is shutting down; try again shortly",
    data: { retryAfterSeconds: 1 },
  });
  return { status: 503, headers: { ...JSON_HEADERS, "retry-after": "1" }, body };
}

/** The engine's trouble as the 503 that answers a request (`id`: its id's JSON text); anything else rethrown. */
export function faultAnswer(id: string | null): (error: unknown) => Outgoing {
  return (error) => {
    if (isEngineUnavailable(error)) return unavailable(id, error);
    if (error instanceof ShuttingDown) return shuttingDown(id);
    throw error;
  };
}

// What a request running on a process that stopped is answered with, by another process.
const ORPHANED = "Internal error: the server process serving this request stopped before it answered; send it again";

/** The error response of request `id` (its JSON text) whose process stopped: the one answer such a request gets. */
export function orphanedLine(id: string): string {
  return errorLine(id, { code: ErrorCode.InternalError, message: ORPHANED });
}
