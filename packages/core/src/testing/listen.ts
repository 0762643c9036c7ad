import type { ListenFilter } from "../connection/methods.js";
import { McpError } from "../wire/errors.js";
import type { JsonRpcNotification, RequestId } from "../wire/json-rpc.js";
import { abortReason, keyOf, type Wire } from "./wire.js";

// 2026-07-28 `subscriptions/listen`: a stream the test reads notification by notification.

/** An open `subscriptions/listen` stream (2026-07-28). */
export interface TestSubscription {
  readonly id: RequestId;
  /** What the server agreed to send (its acknowledgement). */
  readonly acknowledged: ListenFilter;
  /** Every notification on the stream after the acknowledgement. */
  readonly notifications: JsonRpcNotification[];
  /** The next notification on the stream; rejects once the stream has ended (closed, aborted, the client closed). */
  next(): Promise<JsonRpcNotification>;
  /** Cancel the stream, as a client does. */
  close(): Promise<void>;
}

/** Open a stream on `wire`; resolves once the server acknowledged it, rejects if it refused. */
export async function listen(
  wire: Wire,
  filter: ListenFilter & { taskIds?: string[] },
  signal: AbortSignal | undefined,
): Promise<TestSubscription> {
  if (wire.closed) throw wire.closed;
  if (signal?.aborted) throw signal.reason;
  const id: RequestId = `listen-${wire.nextId()}`;
  const received: JsonRpcNotification[] = [];
  const readers: { resolve(notification: JsonRpcNotification): void; reject(error: unknown): void }[] = [];
  let unread = 0;
  // Why the stream ended, once it has: a reader waiting then, and every later one, is told.
  let ended: { why: unknown } | undefined;
  let acknowledged: (filter: ListenFilter) => void = () => {};
  let refused: (error: unknown) => void = () => {};
  const ack = new Promise<ListenFilter>((resolve, reject) => {
    acknowledged = resolve;
    refused = reject;
  });
  const end = (why: unknown, cancelReason?: string) => {
    if (ended) return;
    ended = { why };
    wire.streams.delete(keyOf(id));
    wire.waiting.delete(keyOf(id));
    signal?.removeEventListener("abort", onAbort);
    for (const reader of readers.splice(0)) reader.reject(why);
    refused(why);
    if (cancelReason !== undefined) wire.cancel(id, cancelReason);
  };
  const onAbort = () => end(signal?.reason, abortReason(signal?.reason));
  wire.streams.set(keyOf(id), (notification) => {
    if (notification.method === "notifications/subscriptions/acknowledged") {
      acknowledged((notification.params?.notifications ?? {}) as ListenFilter);
      return;
    }
    received.push(notification);
    const reader = readers.shift();
    if (reader) {
      unread++;
      reader.resolve(notification);
    }
  });
  wire.waiting.set(keyOf(id), {
    // The server ended the stream: refused at once (its error), or closed later (its result).
    resolve: (response) => {
      const error = "error" in response ? response.error : undefined;
      end(
        error
          ? new McpError(error.code, error.message, error.data)
          : new Error(`the server ended the subscriptions/listen stream ${JSON.stringify(id)}`),
      );
    },
    fail: (error, reason) => end(error, reason),
    notifications: [],
    requests: [],
    answering: new Set(),
  });
  signal?.addEventListener("abort", onAbort, { once: true });
  wire.deliver({
    jsonrpc: "2.0",
    id,
    method: "subscriptions/listen",
    params: wire.withMeta({ notifications: filter }),
  });
  const first = await ack;
  return {
    id,
    acknowledged: first,
    notifications: received,
    next: () => {
      if (unread < received.length) return Promise.resolve(received[unread++] as JsonRpcNotification);
      if (ended) return Promise.reject(ended.why);
      return new Promise((resolve, reject) => readers.push({ resolve, reject }));
    },
    close: async () => {
      if (ended) return;
      end(new Error(`the subscriptions/listen stream ${JSON.stringify(id)} was closed`));
      await wire.notify("notifications/cancelled", { requestId: id, reason: "closed by the test" });
    },
  };
}
