import { ErrorCode, errorLine } from "@toolsmith/core";
import { DEFAULT_RETRY_AFTER_SECONDS, serviceUnavailable } from "@toolsmith/core/internal";
import { JSON_HEADERS, type Outgoing } from "./exchange.js";

// What the transport answers when the engine (a shared store: Redis) cannot be reached: 503 with Retry-After.

function secondsOf(error: unknown): number {
  const seconds = (error as { retryAfterSeconds?: unknown }).retryAfterSeconds;
  return typeof seconds === "number" && Number.isFinite(seconds) && seconds > 0
    ? Math.ceil(seconds)
    : DEFAULT_RETRY_AFTER_SECONDS;
}

/** The 503 for a request (`id`: its id's JSON text, null without one) the engine could not serve. */
export function unavailable(id: string | null, error: unknown, headers?: Readonly<Record<string, string>>): Outgoing {
  const retryAfterSeconds = secondsOf(error);
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
