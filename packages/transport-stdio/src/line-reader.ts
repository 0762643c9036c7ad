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
      // A whole line inside this chunk, nothing of it read before: decoded straight from the chunk, no piece kept.
      if (end !== -1 && this.#length === 0 && this.#scanner === undefined && end - start <= this.maxLineBytes) {
        out.push({ kind: "line", text: lineText(chunk, start, end) });
        start = end + 1;
        continue;
      }
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
    return { kind: "line", text: lineText(buffer, 0, buffer.length) };
  }
}

// The text of the line in bytes `from` to `to` of `buffer`, without a trailing "\r" or a leading byte order mark.
function lineText(buffer: Buffer, from: number, to: number): string {
  // A byte order mark some writers put first is not part of the JSON text (RFC 8259 lets a parser ignore it).
  const bom = to - from >= 3 && buffer[from] === 0xef && buffer[from + 1] === 0xbb && buffer[from + 2] === 0xbf;
  const start = bom ? from + 3 : from;
  const last = to - 1;
  return buffer.toString("utf8", start, last >= start && buffer[last] === 0x0d ? last : to);
}
