import { readBounded } from "@toolsmith/core/internal";
import { UpstreamError } from "./upstream.js";

// Every call to the provider is bounded: a provider that hangs, streams forever or answers something other than a
// JSON object is an `UpstreamError("unavailable")`, never a hung request or a crash.

/** Limits on one call to the provider. */
export interface FetchLimits {
  /** Milliseconds for the whole call, body included (default 10 s). */
  readonly timeoutMs?: number;
  /** Largest body read, in bytes (default 1 MiB). */
  readonly maxResponseBytes?: number;
}

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_BYTES = 1024 * 1024;

/**
 * POST or GET `url` and read its answer as a JSON object: `{ status, body }` (any status: the caller reads an OAuth
 * error from a 400). An `UpstreamError("unavailable")` when it cannot be reached in time, or answers over the size
 * limit or with no JSON object. `what` names the call in errors ("the token endpoint").
 */
export async function fetchJson(
  url: string,
  init: RequestInit,
  limits: FetchLimits,
  what: string,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const signal = AbortSignal.timeout(limits.timeoutMs ?? DEFAULT_TIMEOUT_MS);
  let response: Response;
  let bytes: Uint8Array | undefined;
  try {
    response = await fetch(url, { ...init, signal, redirect: "error" });
    bytes = await readBounded(response.body, limits.maxResponseBytes ?? DEFAULT_MAX_BYTES);
  } catch (error) {
    const timedOut = signal.aborted;
    throw new UpstreamError("unavailable", `${what} ${timedOut ? "did not answer in time" : "could not be reached"}`, {
      cause: error,
    });
  }
  if (bytes === undefined) throw new UpstreamError("unavailable", `${what} answered more than the size limit`);
  let body: unknown;
  try {
    body = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    body = undefined;
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new UpstreamError("unavailable", `${what} answered ${response.status} without a JSON object`);
  }
  return { status: response.status, body: body as Record<string, unknown> };
}
