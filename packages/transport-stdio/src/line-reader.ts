import { TopLevelIdScanner } from "./id-scanner.js";

const NEWLINE = 0x0a;

/** What the reader found: a line of text, or a line over the limit that was dropped. */
export type LineEvent =
  | { kind: "line"; text: string }
  | { kind: "oversized"; bytes: number; idText: string; notification: boolean };

/**
 * Splits a byte stream into lines at "\n" (a trailing "\r" and a leading byte order mark are dropped) and decodes
 * them as UTF-8.
 * A line longer than `maxLineBytes` is not kept: its bytes are scanned for the request id and discarded.
 */
export class LineReader {
  readonly maxLineBytes: number;
  #parts: Buffer[] = [];
  #length = 0;
  #scanner: TopLevelIdScanner | undefined;

  constructor(maxLineBytes: number) {
    this.maxLineBytes = maxLineBytes;
  }

  /** Feed a chunk; every complete line it ends is pushed to `out`. */
  push(chunk: Buffer, out: LineEvent[]): void {
    let start = 0;
    while (start < chunk.length) {
      const end = chunk.indexOf(NEWLINE, start);
      const piece = end === -1 ? chunk.subarray(start) : chunk.subarray(start, end);
      this.#append(piece);
      if (end === -1) return;
      out.push(this.#finishLine());
      start = end + 1;
    }
  }

  /** At end of input: a last line without "\n" still counts. */
  end(out: LineEvent[]): void {
    if (this.#length > 0 || this.#scanner) out.push(this.#finishLine());
  }

  #append(piece: Buffer): void {
    if (piece.length === 0) return;
    this.#length += piece.length;
    if (this.#scanner) {
      this.#scanner.push(piece);
      return;
    }
    this.#parts.push(piece);
    if (this.#length > this.maxLineBytes) {
      this.#scanner = new TopLevelIdScanner();
      for (const part of this.#parts) this.#scanner.push(part);
      this.#parts = [];
    }
  }

  #finishLine(): LineEvent {
    const bytes = this.#length;
    this.#length = 0;
    if (this.#scanner) {
      const { idText, isNotification } = this.#scanner;
      this.#scanner = undefined;
      return { kind: "oversized", bytes, idText, notification: isNotification };
    }
    const parts = this.#parts;
    this.#parts = [];
    const buffer = parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts, bytes);
    const last = buffer.length - 1;
    // A byte order mark some writers put first is not part of the JSON text (RFC 8259 lets a parser ignore it).
    const start = buffer[0] === 0xef && buffer[1] === 0xbb && buffer[2] === 0xbf ? 3 : 0;
    const text = buffer.toString("utf8", start, last >= start && buffer[last] === 0x0d ? last : buffer.length);
    return { kind: "line", text };
  }
}
