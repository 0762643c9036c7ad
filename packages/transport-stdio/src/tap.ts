import type { Phase } from "@toolsmith/core/transport";

/** One line on the wire, as a tap sees it. */
export interface WireEntry {
  direction: "in" | "out";
  line: string;
  phase: Phase;
}

/**
 * `serveStdio({ tap })`: sees each line that crosses the pipe, in order; a tap that throws is logged and serving goes
 * on. Without one, nothing is made for it.
 */
export class Tap {
  /** True when there is a tap: callers check it before making an entry. */
  readonly on: boolean;
  readonly #tap: ((entry: WireEntry) => void) | undefined;
  readonly #log: (error: unknown, where: { method: string }) => void;

  constructor(tap: ((entry: WireEntry) => void) | undefined, log: (error: unknown, where: { method: string }) => void) {
    this.on = tap !== undefined;
    this.#tap = tap;
    this.#log = log;
  }

  see(entry: WireEntry): void {
    if (!this.#tap) return;
    try {
      this.#tap(entry);
    } catch (error) {
      this.#log(error, { method: "(tap)" });
    }
  }
}
