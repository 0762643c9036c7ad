import { type AuthInfo, ErrorCode } from "@toolsmith/core";
import { callerKey } from "@toolsmith/core/transport";
import { EventStream } from "../exchange/event-stream.js";
import type { Incoming, Outgoing } from "../exchange/exchange.js";
import { refuse } from "../exchange/refusals.js";

// What one caller may hold of the bounded resources (sessions, long-lived streams), and who that caller is.

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
export function callerKeyOf(
  request: Incoming,
  auth: AuthInfo | undefined,
  remoteAddress: RemoteAddress | undefined,
): string | undefined {
  return callerKey(auth?.subject, addressOf(request, remoteAddress));
}

/** Long-lived SSE streams (GET streams, 2026-07-28 listen streams), counted while open, in all and per caller. */
export class StreamLimits {
  readonly #max: number;
  readonly #held: CallerCounts;
  #open = 0;

  constructor(max: number, perCaller: number) {
    this.#max = max;
    this.#held = new CallerCounts(perCaller);
  }

  /** Take a place for `caller`'s stream: undefined when taken, else the 503 (echoing `id`) that refuses it. */
  take(caller: string | undefined, id: string | null): Outgoing | undefined {
    if (this.#open >= this.#max) {
      return refuse(503, id, ErrorCode.ServerError, "Too many open streams; try again later");
    }
    if (!this.#held.take(caller)) {
      return refuse(
        503,
        id,
        ErrorCode.ServerError,
        `Too many open streams for one caller (at most ${this.#held.limit}); close one or try again later`,
      );
    }
    this.#open++;
    return undefined;
  }

  /** Give back a place `take` gave. */
  release(caller: string | undefined): void {
    this.#open--;
    this.#held.release(caller);
  }

  /** A GET stream on a place already taken, given back once: when it closes or its client goes away. */
  open(caller: string | undefined): EventStream {
    let open = true;
    const release = () => {
      if (open) this.release(caller);
      open = false;
    };
    const stream = new EventStream(release);
    const close = stream.close.bind(stream);
    stream.close = () => {
      release();
      close();
    };
    return stream;
  }
}
