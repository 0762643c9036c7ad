import type { RequestId } from "@toolsmith/core";
import { keyOf } from "@toolsmith/core/internal";
import { requestIdOf } from "./line-kinds.js";
import type { LineEvent } from "./line-reader.js";

// What a waiting line costs beyond its text (its objects), so that a flood of tiny lines counts too.
const LINE_OVERHEAD = 64;

function cost(event: LineEvent): number {
  return event.kind === "line" ? event.text.length + LINE_OVERHEAD : 0;
}

/**
 * Lines read but not served yet, in order, and what they hold in memory (`bytes`). A request the client cancels
 * while it waits is dropped when its turn comes.
 */
export class WaitingLines {
  readonly #lines: (LineEvent | undefined)[] = [];
  #at = 0;
  #bytes = 0;
  // Requests cancelled while waiting: by id, the index the request must come before (a later one reuses the id).
  readonly #cancelled = new Map<string, number>();
  #cancelledBefore = 0;
  readonly #dropped: (event: LineEvent) => void;

  /** `dropped` sees each line dropped because the client cancelled its request. */
  constructor(dropped: (event: LineEvent) => void) {
    this.#dropped = dropped;
  }

  get empty(): boolean {
    return this.#at === this.#lines.length;
  }

  /** The text of the waiting lines, plus 64 bytes a line; and the ids of the cancellations kept for them. */
  get bytes(): number {
    return this.#bytes;
  }

  push(event: LineEvent): void {
    this.#lines.push(event);
    this.#bytes += cost(event);
  }

  /** The client cancelled `id` and nothing running had it: the request, if it waits here, will be dropped. */
  cancel(id: RequestId): void {
    if (this.empty) return;
    const key = keyOf(id);
    // Kept until the queue empties: counted like a line, so a flood of cancellations is bounded as requests are.
    if (!this.#cancelled.has(key)) this.#bytes += key.length + LINE_OVERHEAD;
    this.#cancelled.set(key, this.#lines.length);
    this.#cancelledBefore = this.#lines.length;
  }

  /** The next line to serve, with its message when it had to be parsed; undefined once none waits. */
  shift(): { event: LineEvent; parsed?: unknown } | undefined {
    while (!this.empty) {
      const index = this.#at++;
      const event = this.#lines[index] as LineEvent;
      this.#lines[index] = undefined;
      this.#bytes -= cost(event);
      const taken = this.#take(index, event);
      if (this.empty) this.#reset();
      if (taken) return taken;
    }
    return undefined;
  }

  /** Drop every waiting line. */
  clear(): void {
    this.#reset();
  }

  // The line at `index`, or undefined when the client cancelled its request while it waited.
  #take(index: number, event: LineEvent): { event: LineEvent; parsed?: unknown } | undefined {
    // Only while a cancellation may still find its request is a line parsed here (and then not parsed again).
    if (index >= this.#cancelledBefore || event.kind !== "line") return { event };
    let parsed: unknown;
    try {
      parsed = JSON.parse(event.text);
    } catch {
      return { event };
    }
    const id = requestIdOf(parsed);
    const key = id === undefined ? undefined : keyOf(id);
    const before = key === undefined ? undefined : this.#cancelled.get(key);
    if (key === undefined || before === undefined || index >= before) return { event, parsed };
    this.#cancelled.delete(key);
    this.#bytes -= key.length + LINE_OVERHEAD;
    this.#dropped(event);
    return undefined;
  }

  #reset(): void {
    this.#lines.length = 0;
    this.#at = 0;
    this.#bytes = 0;
    this.#cancelled.clear();
    this.#cancelledBefore = 0;
  }
}
