// An HTTP answer read as it arrives: an event stream split into events (a call's log taken out for its caller), a
// JSON body counted; once an event or the body passes the bound, the answer is cut before anything holds it whole.

/** Room for the envelope and framing around a result of `maxResultBytes` (its JSON text is checked again after). */
export const FRAMING_BYTES = 64 * 1024;

export interface StreamBounds {
  /** The body is an event stream (else a JSON body, only counted). */
  readonly sse: boolean;
  /** The answer's bound; an event or body past it (plus framing) is cut. */
  readonly maxBytes: number;
  /** A `notifications/message` read on the stream, taken out of it (without, it passes on). */
  readonly log?: (params: Record<string, unknown>) => void;
  /** Cut the call: the answer is too large. */
  cut(message: string): void;
}

export function sseFilter(bounds: StreamBounds): TransformStream<Uint8Array, Uint8Array> {
  const limit = bounds.maxBytes + FRAMING_BYTES;
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  const held = new Held();
  let carry = "";
  let counted = 0;
  const tooLarge = (controller: TransformStreamDefaultController<Uint8Array>) => {
    const message = `answered with more than ${bounds.maxBytes} bytes`;
    bounds.cut(message);
    controller.error(new Error(message));
  };

  const event = (text: string, controller: TransformStreamDefaultController<Uint8Array>) => {
    const data = text
      .split("\n")
      .filter((line) => line.startsWith("data:"))
      .map((line) => line.slice(line.startsWith("data: ") ? 6 : 5))
      .join("\n");
    const message = bounds.log ? parse(data) : undefined;
    if (message?.method === "notifications/message" && message.id === undefined && isObject(message.params)) {
      bounds.log?.(message.params);
      return;
    }
    controller.enqueue(encoder.encode(`${text}\n\n`));
  };

  return new TransformStream({
    transform(chunk, controller) {
      if (!bounds.sse) {
        counted += chunk.byteLength;
        if (counted > limit) tooLarge(controller);
        else controller.enqueue(chunk);
        return;
      }
      // Only the new text is normalised and searched (the held one stays in parts, never joined until its event
      // ends); a lone \r at its end may be half of \r\n, kept for the next chunk.
      let piece = carry + decoder.decode(chunk, { stream: true });
      carry = piece.endsWith("\r") ? "\r" : "";
      if (carry) piece = piece.slice(0, -1);
      piece = piece.replace(/\r\n?/g, "\n");
      if (held.endsWithNewline && piece.startsWith("\n")) {
        event(held.take().slice(0, -1), controller);
        piece = piece.slice(1);
      }
      let end = piece.indexOf("\n\n");
      while (end !== -1) {
        event(held.take() + piece.slice(0, end), controller);
        piece = piece.slice(end + 2);
        end = piece.indexOf("\n\n");
      }
      held.add(piece);
      if (held.size > limit) tooLarge(controller);
    },
    flush(controller) {
      if (!bounds.sse) return;
      const rest = (held.take() + carry + decoder.decode()).replace(/\r\n?/g, "\n");
      if (rest.trim() !== "") event(rest.replace(/\n+$/, ""), controller);
    },
  });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function parse(data: string): { id?: unknown; method?: unknown; params?: unknown } | undefined {
  if (!data.startsWith("{") || !data.includes('"notifications/message"')) return undefined;
  try {
    const value: unknown = JSON.parse(data);
    return isObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** The text of an event not yet ended, in pieces (joined once, when it ends). */
class Held {
  #parts: string[] = [];
  size = 0;
  endsWithNewline = false;

  add(piece: string): void {
    if (piece === "") return;
    this.#parts.push(piece);
    this.size += piece.length;
    this.endsWithNewline = piece.endsWith("\n");
  }

  take(): string {
    const text = this.#parts.join("");
    this.#parts = [];
    this.size = 0;
    this.endsWithNewline = false;
    return text;
  }
}
