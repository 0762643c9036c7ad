import type { Phase } from "@toolsmith/core/transport";
import { frame } from "./framing.js";
import type { StdoutRedirect } from "./stdout-redirect.js";
import type { Tap } from "./tap.js";

// Replies made while a chunk is served are written together, a write once this much is held: a few replies a
// write (not one a reply), yet the client reads the first ones while the rest are made (not all at the chunk's end).
const HELD_BYTES = 1024;

/**
 * What goes out on stdout: each line framed and seen by the tap, written at once or held to go a few to a write, and
 * whether stdout's buffer is full (the client is not reading). Nothing once finished.
 */
export class Outgoing {
  readonly #write: StdoutRedirect["write"];
  readonly #tap: Tap;
  // Lines held to be written together (`hold` … `release`); undefined when each is written as it comes.
  #held: string | undefined;
  #blocked = false;
  #finished = false;

  constructor(write: StdoutRedirect["write"], tap: Tap) {
    this.#write = write;
    this.#tap = tap;
  }

  /** True while stdout's buffer is full: the client is not reading what was written. */
  get blocked(): boolean {
    return this.#blocked;
  }

  /** True once finished: nothing more is written. */
  get finished(): boolean {
    return this.#finished;
  }

  /** stdout has room again. */
  drained(): void {
    this.#blocked = false;
  }

  /** Write `line` to stdout, unless finished; `phase` is what a tap sees it with. */
  send(line: string, phase: Phase): void {
    if (this.#finished) return;
    const framed = frame(line);
    // Without a tap, nothing is made for one.
    if (this.#tap.on) this.#tap.see({ direction: "out", line: framed.slice(0, -1), phase });
    if (this.#held === undefined) {
      if (!this.#write(framed)) this.#blocked = true;
      return;
    }
    this.#held += framed;
    // Written once enough is held: so a full stdout also stops serving about as soon as without holding.
    if (this.#held.length >= HELD_BYTES) this.#writeHeld();
  }

  /** Hold lines from here until `release`: a write per KiB or so, not per line. */
  hold(): void {
    this.#held ??= "";
  }

  /** Write the held lines, and write each from now on as it comes. */
  release(): void {
    if (this.#held === undefined) return;
    this.#writeHeld();
    this.#held = undefined;
  }

  /** Write what is held, then nothing more. */
  finish(): void {
    this.release();
    this.#finished = true;
  }

  #writeHeld(): void {
    const held = this.#held;
    if (!held) return;
    this.#held = "";
    if (!this.#write(held)) this.#blocked = true;
  }
}
