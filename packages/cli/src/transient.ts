import type { FetchLike } from "@modelcontextprotocol/client";
import { printable } from "./printable.js";

/**
 * A request the server could not take just now: HTTP 502, 503 or 504 (a proxy without a backend, a server whose
 * store is down, a gateway time-out), a server that could not be reached, or an answer stream that ended (or timed
 * out) without the answer. Sending it again later may work.
 */
export class Unavailable extends Error {
  constructor(
    /** What happened, in a few words (`HTTP 503 Service Unavailable`). */
    readonly reason: string,
    /** What the server's `Retry-After` asked for, in milliseconds, when it said. */
    readonly retryAfterMs?: number,
    /** What the server said with it (the start of its body). */
    detail = "",
  ) {
    super(detail === "" ? reason : `${reason}: ${detail}`);
    this.name = "Unavailable";
  }
}

const RETRY_STATUSES = new Set([502, 503, 504]);
// What Node's fetch (undici) says, in its error's cause, for a server it could not reach or that hung up.
const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EAI_AGAIN",
  "UND_ERR_SOCKET",
  "UND_ERR_CONNECT_TIMEOUT",
]);

// The three forms of an HTTP-date (RFC 9110 §5.6.7), all GMT: Date.parse alone takes "1.5" for 5 January 2001.
const HTTP_DATES = [
  /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/,
  /^[A-Z][a-z]{5,8}, \d{2}-[A-Z][a-z]{2}-\d{2} \d{2}:\d{2}:\d{2} GMT$/,
  /^[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2} \d{4}$/,
];

/** `Retry-After` (seconds, or an HTTP date) in milliseconds; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now: number = Date.now()): number | undefined {
  const value = header?.trim() ?? "";
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  if (!HTTP_DATES.some((form) => form.test(value))) return undefined;
  const at = Date.parse(value.endsWith("GMT") ? value : `${value} GMT`);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** The network error code in a fetch failure (`TypeError: fetch failed` with a cause), if any. */
function networkCode(error: unknown): string | undefined {
  for (let e: unknown = error, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && NETWORK_CODES.has(code)) return code;
  }
  return undefined;
}

/**
 * `fetch` for the HTTP transport: a POST answered 502, 503 or 504, or one that could not reach the server, throws
 * `Unavailable` (the official client would throw a plain error that has lost the `Retry-After` header).
 */
export function unavailableAware(base: FetchLike = fetch): FetchLike {
  return async (url, init) => {
    if (init?.method !== "POST") return base(url, init);
    let response: Response;
    try {
      response = await base(url, init);
    } catch (error) {
      const code = networkCode(error);
      if (code === undefined) throw error;
      throw new Unavailable(`could not reach ${String(url)} (${code})`);
    }
    if (!RETRY_STATUSES.has(response.status)) return response;
    // What a proxy or server said, made printable: it ends up in the one-line error on the user's terminal.
    const body = printable((await response.text().catch(() => "")).trim());
    const wait = retryAfterMs(response.headers.get("retry-after"));
    const detail = body.length > 300 ? `${body.slice(0, 300)}…` : body;
    throw new Unavailable(`HTTP ${response.status} ${response.statusText}`.trimEnd(), wait, detail);
  };
}
