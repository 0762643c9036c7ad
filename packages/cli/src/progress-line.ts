import type { Colors } from "./colors.js";
import { printable } from "./printable.js";

/** Where a call's progress is shown: one live line on a terminal, a plain line per change otherwise. */
export interface ProgressLine {
  /**
   * Show `text` (with the time since the call began on a terminal); a repeat of the last text is not printed again.
   * What a server put in it (a progress message, a task's status message) is shown with control characters escaped.
   */
  show(text: string): void;
  /** Clear the live line (a plain line stays). */
  clear(): void;
}

/** A progress line on `stream` (stderr): live (`\r`) when it is a terminal. */
export function progressLine(
  stream: { isTTY?: boolean; write(text: string): unknown },
  c: Colors,
  now: () => number = Date.now,
): ProgressLine {
  const started = now();
  let last = "";
  const live = stream.isTTY === true;
  return {
    show(shown) {
      // A server's text must not move the cursor, recolour or retitle the terminal, nor fake a line of its own.
      const text = printable(shown);
      if (live) {
        const seconds = Math.floor((now() - started) / 1000);
        stream.write(`\r\x1b[2K${text} ${c.dim(`(${seconds}s)`)}`);
      } else if (text !== last) stream.write(`${text}\n`);
      last = text;
    },
    clear() {
      if (live && last !== "") stream.write("\r\x1b[2K");
    },
  };
}

/** A `notifications/progress` as one line: `tool: 3/10 message`. */
export function describeProgress(
  tool: string,
  p: { progress: number; total?: number | undefined; message?: string | undefined },
): string {
  return `${tool}: ${p.progress}${p.total !== undefined ? `/${p.total}` : ""}${p.message ? ` ${p.message}` : ""}`;
}
