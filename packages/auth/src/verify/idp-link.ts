import { readBounded } from "@toolsmith/core/internal";
import { AuthUnavailable } from "@toolsmith/transport-http";

/** How an identity provider is reached: every request bounded in time and size, failures backed off. */
export interface IdpLimits {
  /** Milliseconds one request (answer and body) may take (default 5000). */
  readonly timeoutMs?: number;
  /** Bytes an answer's body may have (default 256 KiB). */
  readonly maxResponseBytes?: number;
  /** Seconds after a failure during which requests fail fast with 503 instead of reaching the provider (default 5). */
  readonly retryAfterSec?: number;
}

/** An answer read whole, within the limits. */
export interface IdpAnswer {
  readonly status: number;
  readonly body: string;
}

async function readAnswer(response: Response, maxBytes: number): Promise<string> {
  const length = Number(response.headers.get("content-length"));
  if (length > maxBytes) throw new Error(`the answer is larger than ${maxBytes} bytes`);
  const bytes = await readBounded(response.body, maxBytes);
  if (bytes === undefined) throw new Error(`the answer is larger than ${maxBytes} bytes`);
  return new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes);
}

/**
 * One identity provider as a verifier reaches it. A request that fails (no answer, too slow, too large, a status
 * not expected) throws `AuthUnavailable`, and for `retryAfterSec` afterwards every request fails fast the same way:
 * a provider that is down is not hammered by every caller, and no caller is told its token is bad.
 */
export class IdpLink {
  readonly timeoutMs: number;
  readonly #maxBytes: number;
  readonly #retryAfterSec: number;
  #downUntil = 0;
  #downBecause = "";

  constructor(limits: IdpLimits = {}) {
    this.timeoutMs = limits.timeoutMs ?? 5000;
    this.#maxBytes = limits.maxResponseBytes ?? 256 * 1024;
    this.#retryAfterSec = limits.retryAfterSec ?? 5;
    if (!(this.timeoutMs > 0) || !(this.#maxBytes > 0) || !(this.#retryAfterSec > 0)) {
      throw new TypeError("timeoutMs, maxResponseBytes and retryAfterSec must be positive numbers");
    }
  }

  /** The 503 for a failure to reach the provider for `what`; requests fail fast from now for `retryAfterSec`. */
  failed(what: string, cause: unknown): AuthUnavailable {
    if (cause instanceof AuthUnavailable) return cause;
    this.#downUntil = Date.now() + this.#retryAfterSec * 1000;
    this.#downBecause = `the identity provider could not be reached for ${what}`;
    return new AuthUnavailable(`Service unavailable: ${this.#downBecause}; retry later`, this.#retryAfterSec, {
      cause,
    });
  }

  /** Throws the fast 503 while a recent failure is backed off. */
  check(): void {
    const left = this.#downUntil - Date.now();
    if (left > 0) {
      throw new AuthUnavailable(`Service unavailable: ${this.#downBecause}; retry later`, left / 1000);
    }
  }

  /** `url` fetched (never following a redirect), when it answers one of `expected` statuses, within the limits. */
  async fetch(url: string | URL, init: RequestInit, what: string, expected: readonly number[]): Promise<IdpAnswer> {
    this.check();
    try {
      const timeout = AbortSignal.timeout(this.timeoutMs);
      const signal = init.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
      const response = await fetch(url, { ...init, redirect: "manual", signal });
      if (!expected.includes(response.status)) {
        await response.body?.cancel();
        throw new Error(`it answered ${response.status}`);
      }
      return { status: response.status, body: await readAnswer(response, this.#maxBytes) };
    } catch (error) {
      throw this.failed(what, error);
    }
  }
}

/** The JSON object `body` holds, else an error (a provider that answers garbage is a failure to reach it). */
export function jsonObject(body: string): Record<string, unknown> {
  const value: unknown = JSON.parse(body);
  if (typeof value !== "object" || value === null || Array.isArray(value))
    throw new Error("the answer is not a JSON object");
  return value as Record<string, unknown>;
}
