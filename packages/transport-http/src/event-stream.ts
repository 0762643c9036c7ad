const encoder = new TextEncoder();

/** One server-sent-events response body: events written as they come, closed once. */
export class EventStream {
  readonly body: ReadableStream<Uint8Array>;
  #controller!: ReadableStreamDefaultController<Uint8Array>;
  #closed = false;
  #onCancel: (() => void) | undefined;

  constructor(onCancel?: () => void) {
    this.#onCancel = onCancel;
    this.body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.#controller = controller;
      },
      cancel: () => {
        // The client went away.
        this.#closed = true;
        this.#onCancel?.();
      },
    });
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** One event: `data` is a JSON-RPC message (one line, as JSON never has raw newlines), `id` for resumption. */
  write(data: string, id?: string): void {
    if (this.#closed) return;
    this.#controller.enqueue(encoder.encode(`${id === undefined ? "" : `id: ${id}\n`}data: ${data}\n\n`));
  }

  /** An event with an id and empty data, so a client can resume from the start of the stream. */
  prime(id: string): void {
    if (this.#closed) return;
    this.#controller.enqueue(encoder.encode(`id: ${id}\ndata:\n\n`));
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#onCancel = undefined;
    this.#controller.close();
  }
}

/** Headers of an SSE response (no buffering by proxies). */
export const SSE_HEADERS: Readonly<Record<string, string>> = {
  "content-type": "text/event-stream",
  "cache-control": "no-cache, no-transform",
  "x-accel-buffering": "no",
};
