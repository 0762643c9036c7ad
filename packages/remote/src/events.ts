// The events of an event stream, split from its bytes as they come: each byte looked at once, the event not yet ended
// held as the bytes of its one unfinished line (in one buffer grown by doubling) and its finished lines' values, so a
// remote writing a byte at a time costs the gateway its bytes, never an object or a search of the whole per byte.

export interface StreamEvent {
  /** The event's type (its `event` field), when it has one. */
  readonly type: string | undefined;
  /** The event's data lines joined, when it has any (the remote's priming event has none). */
  readonly data: string | undefined;
  /** The event's id, when it has one. */
  readonly id: string | undefined;
  /** The wait the remote asks for before coming back, in ms, when it gives one. */
  readonly retry: number | undefined;
}

const LF = 0x0a;
const CR = 0x0d;
/** The line buffer a splitter starts with, and goes back to after an event that grew it past this. */
const SMALL_LINE = 4 * 1024;
const LARGE_LINE = 64 * 1024;
/**
 * The longest wait a timer holds (node fires a longer one at once, with a TimeoutOverflowWarning): a longer retry is
 * read as this, so that the lane and the official client both wait (until the call's time-out) rather than come back
 * at once.
 */
export const LONGEST_RETRY_MS = 2 ** 31 - 1;

/**
 * Splits an event stream's bytes into events. An event's bytes are those of its lines (their line ends not counted);
 * once the event not yet ended passes `limit`, `push` answers false and the splitter takes nothing more.
 */
export class EventSplitter {
  /** Every byte the splitter looked at, copied or decoded: linear in the stream, whatever its chunks. */
  work = 0;
  readonly #limit: number;
  readonly #each: (event: StreamEvent) => void;
  #line: Buffer = Buffer.allocUnsafe(SMALL_LINE);
  #length = 0;
  #bytes = 0;
  #afterCR = false;
  #first = true;
  #over = false;
  #type: string | undefined;
  #data: string[] | undefined;
  #id: string | undefined;
  #retry: number | undefined;

  constructor(limit: number, each: (event: StreamEvent) => void) {
    this.#limit = limit;
    this.#each = each;
  }

  /** The bytes the line buffer has room for. */
  get capacity(): number {
    return this.#line.byteLength;
  }

  /** Take the next chunk; false once the event not yet ended is past the limit. */
  push(chunk: Buffer): boolean {
    if (this.#over) return false;
    let start = 0;
    // A CR that ended the last chunk ended its line; an LF just after it is part of that line end.
    if (this.#afterCR && chunk.byteLength > 0) {
      this.#afterCR = false;
      if (chunk[0] === LF) start = 1;
    }
    const length = chunk.byteLength;
    this.work += length - start;
    for (let i = start; i < length; i++) {
      const byte = chunk[i];
      if (byte !== LF && byte !== CR) continue;
      if (!this.#endLine(chunk, start, i)) return false;
      if (byte === CR) {
        if (i + 1 === length) this.#afterCR = true;
        else if (chunk[i + 1] === LF) i++;
      }
      start = i + 1;
    }
    return this.#hold(chunk, start, length);
  }

  /** The stream ended: a line or event it left unfinished is taken as ended. */
  end(): void {
    if (this.#over) return;
    if (this.#length > 0) this.#field(this.#take());
    this.#dispatch();
  }

  // The bytes of the line not yet ended, counted against the limit and copied into the line buffer.
  #hold(chunk: Buffer, start: number, end: number): boolean {
    const n = end - start;
    if (n === 0) return true;
    this.#bytes += n;
    if (this.#bytes > this.#limit) {
      this.#over = true;
      return false;
    }
    if (this.#length + n > this.#line.byteLength) {
      // Never past the limit (the bytes held are within it): the buffer costs at most the bound on one event.
      const grown = Buffer.allocUnsafe(Math.min(this.#limit, Math.max(this.#line.byteLength * 2, this.#length + n)));
      this.#line.copy(grown, 0, 0, this.#length);
      this.work += this.#length;
      this.#line = grown;
    }
    chunk.copy(this.#line, this.#length, start, end);
    this.#length += n;
    this.work += n;
    return true;
  }

  // A line ended at `end` of `chunk`: decoded once, whole (a line found inside one chunk is never copied).
  #endLine(chunk: Buffer, start: number, end: number): boolean {
    if (this.#length === 0) {
      if (start === end) {
        this.#dispatch();
        return true;
      }
      this.#bytes += end - start;
      if (this.#bytes > this.#limit) {
        this.#over = true;
        return false;
      }
      this.work += end - start;
      this.#field(chunk.toString("utf8", start, end));
      return true;
    }
    if (!this.#hold(chunk, start, end)) return false;
    this.#field(this.#take());
    return true;
  }

  #take(): string {
    this.work += this.#length;
    const text = this.#line.toString("utf8", 0, this.#length);
    this.#length = 0;
    return text;
  }

  #field(line: string): void {
    if (this.#first) {
      this.#first = false;
      if (line.charCodeAt(0) === 0xfeff) line = line.slice(1);
    }
    const colon = line.indexOf(":");
    if (colon === 0) return;
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? "" : line.slice(line.charCodeAt(colon + 1) === 32 ? colon + 2 : colon + 1);
    if (field === "data") {
      this.#data ??= [];
      this.#data.push(value);
    } else if (field === "id" && !value.includes("\0")) this.#id = value;
    else if (field === "retry" && /^\d+$/.test(value)) this.#retry = Math.min(Number(value), LONGEST_RETRY_MS);
    else if (field === "event") this.#type = value;
  }

  #dispatch(): void {
    this.#first = false;
    this.#bytes = 0;
    if (this.#line.byteLength > LARGE_LINE) this.#line = Buffer.allocUnsafe(SMALL_LINE);
    if (this.#data === undefined && this.#id === undefined && this.#retry === undefined && this.#type === undefined) {
      return;
    }
    const event: StreamEvent = { type: this.#type, data: this.#data?.join("\n"), id: this.#id, retry: this.#retry };
    this.#type = undefined;
    this.#data = undefined;
    this.#id = undefined;
    this.#retry = undefined;
    this.#each(event);
  }
}

/** Wait `ms`, or until `signal` aborts (then its reason is thrown). */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const stopped = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", stopped);
      resolve();
    }, ms);
    signal.addEventListener("abort", stopped, { once: true });
  });
}
