import { ErrorCode } from "@toolsmith/core";
import { CallerCounts } from "./caller-limits.js";
import { EventStream } from "./event-stream.js";
import type { Outgoing } from "./exchange.js";
import { refuse } from "./refusals.js";

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
