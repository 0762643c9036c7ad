import type { AuthInfo } from "@toolsmith/core";
import { callerKey } from "@toolsmith/core/internal";
import type { Incoming } from "./exchange.js";

/** The share of a global limit one caller may hold by default: no single caller can take it all. */
export function callerShare(global: number): number {
  return Math.max(1, Math.ceil(global / 4));
}

/**
 * What each caller holds of a bounded resource (sessions, streams), against a per-caller limit. A caller is a key
 * (`subject …` or `address …`); an unknown caller (undefined) is bounded by the global limit alone.
 */
export class CallerCounts {
  readonly limit: number;
  readonly #held = new Map<string, number>();

  constructor(limit: number) {
    this.limit = limit;
  }

  /** True when `caller` may take one more. */
  has(caller: string | undefined): boolean {
    return caller === undefined || (this.#held.get(caller) ?? 0) < this.limit;
  }

  /** Take one for `caller`; false (nothing taken) at its limit. */
  take(caller: string | undefined): boolean {
    if (caller === undefined) return true;
    const held = this.#held.get(caller) ?? 0;
    if (held >= this.limit) return false;
    this.#held.set(caller, held + 1);
    return true;
  }

  /** Give one back. */
  release(caller: string | undefined): void {
    if (caller === undefined) return;
    const held = (this.#held.get(caller) ?? 0) - 1;
    if (held > 0) this.#held.set(caller, held);
    else this.#held.delete(caller);
  }
}

/**
 * The `remoteAddress` option: the caller's address for a request, `peer` being the address of the socket it came on
 * (node:http's; undefined where it is not known, as in the web-standard handler).
 */
export type RemoteAddress = (request: Request, peer: string | undefined) => string | undefined;

/** The peer's address, read when asked: `remoteAddress` (the option) when given, else the socket's. */
export function addressOf(request: Incoming, remoteAddress: RemoteAddress | undefined): () => string | undefined {
  return remoteAddress ? () => remoteAddress(request.request(), request.remoteAddress) : () => request.remoteAddress;
}

/**
 * Who holds a session or stream, for the per-caller limits: core's `callerKey` (the authenticated subject, else the
 * address), as tasks are counted; undefined when neither is known.
 */
export function callerOf(
  request: Incoming,
  auth: AuthInfo | undefined,
  remoteAddress: RemoteAddress | undefined,
): string | undefined {
  return callerKey(auth?.subject, addressOf(request, remoteAddress));
}
