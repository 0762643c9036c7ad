import type { JSONRPCMessage, Transport, TransportSendOptions } from "@modelcontextprotocol/client";
import type { RawClientDispatch } from "@modelcontextprotocol/ext-tasks/client";

// The host's raw request path the ext-tasks client needs for the tasks extension (2026-07-28), whose task shapes
// the SDK client's own codecs refuse: requests sent as written on the client's own transport (the same stdio
// process, the same HTTP endpoint), their responses taken off it before the client sees them.

type Response = Awaited<ReturnType<RawClientDispatch>>;

/** A transport that also carries raw requests (ids "raw-<n>"), answering them to `dispatch`. */
export class RawDispatchTransport implements Transport {
  readonly #inner: Transport;
  readonly #waiting = new Map<string, (response: Response) => void>();
  #next = 0;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: Transport["onmessage"];

  constructor(inner: Transport) {
    this.#inner = inner;
    inner.onclose = () => this.onclose?.();
    inner.onerror = (error) => this.onerror?.(error);
    inner.onmessage = (message, extra) => {
      const id = "id" in message ? message.id : undefined;
      const waiting = typeof id === "string" ? this.#waiting.get(id) : undefined;
      if (waiting !== undefined && ("result" in message || "error" in message)) {
        this.#waiting.delete(id as string);
        waiting(
          "error" in message
            ? { kind: "error", error: message.error as never }
            : { kind: "result", result: message.result as never },
        );
        return;
      }
      this.onmessage?.(message, extra);
    };
  }

  get hasPerRequestStream(): boolean | undefined {
    return this.#inner.hasPerRequestStream;
  }

  get sessionId(): string | undefined {
    return this.#inner.sessionId;
  }

  start(): Promise<void> {
    return this.#inner.start();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    return this.#inner.send(message, options);
  }

  close(): Promise<void> {
    return this.#inner.close();
  }

  setProtocolVersion(version: string): void {
    this.#inner.setProtocolVersion?.(version);
  }

  setSupportedProtocolVersions(versions: string[]): void {
    this.#inner.setSupportedProtocolVersions?.(versions);
  }

  /** Send `request` as written (with an id of its own) and resolve with its response. */
  readonly dispatch: RawClientDispatch = (request, options) => {
    const id = `raw-${++this.#next}`;
    const answered = new Promise<Response>((resolve, reject) => {
      this.#waiting.set(id, resolve);
      options?.signal?.addEventListener(
        "abort",
        () => {
          this.#waiting.delete(id);
          reject(options.signal?.reason);
        },
        { once: true },
      );
    });
    const message = { ...(request as Record<string, unknown>), jsonrpc: "2.0", id } as JSONRPCMessage;
    return this.#inner.send(message).then(() => answered);
  };
}
