import { isPlainObject } from "@toolsmith/core/internal";

/** Where an event stream's text goes: a web ReadableStream's controller, or a node:http response. */
export interface StreamSink {
  write(text: string): void;
  end(): void;
  /** Bytes written but not yet taken by the client. */
  unread(): number;
  /** Drop the response at once, with what the client has not read. */
  abort(): void;
}

/**
 * How much a stream may hold that its client has not taken (bytes the socket has not accepted, or events said
 * before the response began). Past it, log messages and progress are left out of the stream, a reply is still
 * written, and anything else cuts the stream (its events stay kept: it resumes with Last-Event-ID). So a client that
 * stopped reading cannot make the process buffer without bound, and a tool that says a lot at once keeps its reply.
 */
export const MAX_UNREAD_BYTES = 1024 * 1024;

// What a client can do without: another log message or progress report says nothing the reply depends on.
const DROPPABLE: ReadonlySet<unknown> = new Set(["notifications/message", "notifications/progress"]);

/** What the message `data` is to a stream past its bound (read only then: most streams never get there). */
function kindOf(data: string): "droppable" | "reply" | "other" {
  let message: unknown;
  try {
    message = JSON.parse(data);
  } catch {
    return "other";
  }
  if (!isPlainObject(message)) return "other";
  if (message.method === undefined) return "reply";
  return message.id === undefined && DROPPABLE.has(message.method) ? "droppable" : "other";
}

/** One server-sent-events response body: events written as they come, closed once. */
export class EventStream {
  #sink: StreamSink | undefined;
  #pending: string[] = [];
  // Characters said before the sink came (close enough to bytes for a bound).
  #pendingSize = 0;
  #closed = false;
  #ended = false;
  #onCancel: (() => void) | undefined;

  constructor(onCancel?: () => void) {
    this.#onCancel = onCancel;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Start writing to `sink` (what was written before goes first). */
  attach(sink: StreamSink): void {
    this.#sink = sink;
    // Cut before it was sent.
    if (this.#closed && !this.#ended) {
      sink.abort();
      return;
    }
    for (const text of this.#pending) sink.write(text);
    this.#pending = [];
    this.#pendingSize = 0;
    if (this.#ended) sink.end();
  }

  /** The client went away. */
  cancel(): void {
    if (this.#closed) return;
    this.#closed = true;
    const onCancel = this.#onCancel;
    this.#onCancel = undefined;
    onCancel?.();
  }

  #emit(text: string, data: string): void {
    if (this.#closed) return;
    const sink = this.#sink;
    if ((sink ? sink.unread() : this.#pendingSize) > MAX_UNREAD_BYTES) {
      const kind = kindOf(data);
      if (kind === "droppable") return;
      if (kind === "other") {
        this.#pending = [];
        this.#pendingSize = 0;
        this.cancel();
        sink?.abort();
        return;
      }
    }
    if (sink) sink.write(text);
    else {
      this.#pending.push(text);
      this.#pendingSize += text.length;
    }
  }

  /** One event: `data` is a JSON-RPC message (one line, as JSON never has raw newlines), `id` for resumption. */
  write(data: string, id?: string): void {
    this.#emit(`${id === undefined ? "" : `id: ${id}\n`}data: ${data}\n\n`, data);
  }

  /** An event with an id and empty data, so a client can resume from the start of the stream. */
  prime(id: string): void {
    this.#emit(`id: ${id}\ndata:\n\n`, "");
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#ended = true;
    this.#onCancel = undefined;
    this.#sink?.end();
  }
}

const encoder = new TextEncoder();

/** The stream as a web ReadableStream (the web-standard front door). */
export function webBody(stream: EventStream): ReadableStream<Uint8Array> {
  // Counted in bytes, so the queue's desired size says how much the client left unread.
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        stream.attach({
          write: (text) => controller.enqueue(encoder.encode(text)),
          end: () => controller.close(),
          unread: () => -(controller.desiredSize ?? 0),
          abort: () => controller.error(new Error("the client read too slowly: resume with Last-Event-ID")),
        });
      },
      cancel() {
        stream.cancel();
      },
    },
    new ByteLengthQueuingStrategy({ highWaterMark: 0 }),
  );
}

/** Headers of an SSE response (no buffering by proxies). */
export const SSE_HEADERS: Readonly<Record<string, string>> = {
  "content-type": "text/event-stream",
  "cache-control": "no-cache, no-transform",
  "x-accel-buffering": "no",
};
