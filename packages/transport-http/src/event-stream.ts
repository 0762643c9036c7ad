/** Where an event stream's text goes: a web ReadableStream's controller, or a node:http response. */
export interface StreamSink {
  write(text: string): void;
  end(): void;
}

/** One server-sent-events response body: events written as they come, closed once. */
export class EventStream {
  #sink: StreamSink | undefined;
  #pending: string[] = [];
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
    for (const text of this.#pending) sink.write(text);
    this.#pending = [];
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

  #emit(text: string): void {
    if (this.#closed) return;
    if (this.#sink) this.#sink.write(text);
    else this.#pending.push(text);
  }

  /** One event: `data` is a JSON-RPC message (one line, as JSON never has raw newlines), `id` for resumption. */
  write(data: string, id?: string): void {
    this.#emit(`${id === undefined ? "" : `id: ${id}\n`}data: ${data}\n\n`);
  }

  /** An event with an id and empty data, so a client can resume from the start of the stream. */
  prime(id: string): void {
    this.#emit(`id: ${id}\ndata:\n\n`);
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
  return new ReadableStream<Uint8Array>({
    start(controller) {
      stream.attach({
        write: (text) => controller.enqueue(encoder.encode(text)),
        end: () => controller.close(),
      });
    },
    cancel() {
      stream.cancel();
    },
  });
}

/** Headers of an SSE response (no buffering by proxies). */
export const SSE_HEADERS: Readonly<Record<string, string>> = {
  "content-type": "text/event-stream",
  "cache-control": "no-cache, no-transform",
  "x-accel-buffering": "no",
};
