import { ErrorCode } from "@toolsmith/core";
import { errorLine } from "@toolsmith/core/transport";
import type { LineEvent } from "./line-reader.js";

const LINE_SEPARATORS = /[\u2028\u2029]/g;

/** `line` as it goes on the pipe: U+2028 and U+2029 escaped (JSON.stringify leaves them raw), then "\n". */
export function frame(line: string): string {
  // Escaped so that no reader takes them for line breaks.
  return `${line.includes("\u2028") || line.includes("\u2029") ? line.replace(LINE_SEPARATORS, (c) => (c === "\u2028" ? "\\u2028" : "\\u2029")) : line}\n`;
}

/** The -32600 reply to a line over `maxLineBytes`, by the id the reader found in it as it streamed past. */
export function tooLargeReply(event: LineEvent & { kind: "oversized" }, maxLineBytes: number): string {
  const message = `Message too large: ${event.bytes} bytes, over the limit of ${maxLineBytes} bytes`;
  return errorLine(event.idText, { code: ErrorCode.InvalidRequest, message });
}
