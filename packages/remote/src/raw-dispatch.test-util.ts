import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/client";
import type { RawClientDispatch } from "@modelcontextprotocol/ext-tasks/client";

// The raw request path the ext-tasks client needs for the tasks extension (2026-07-28), whose task shapes the SDK
// client's own codecs refuse: a request goes out as written on the client's transport, and its response is taken
// off that transport before the client would see it.

type Response = Awaited<ReturnType<RawClientDispatch>>;

/** Wraps `inner`; `dispatch` sends a raw request (id "raw-<n>") and resolves with its response. */
export function withRawDispatch(inner: Transport): { transport: Transport; dispatch: RawClientDispatch } {
  const waiting = new Map<string, (response: Response) => void>();
  let next = 0;
  const transport: Transport = {
    start: () => inner.start(),
    send: (message, options) => inner.send(message, options),
    close: () => inner.close(),
    setProtocolVersion: (version) => inner.setProtocolVersion?.(version),
    setSupportedProtocolVersions: (versions) => inner.setSupportedProtocolVersions?.(versions),
    get sessionId() {
      return inner.sessionId;
    },
  };
  inner.onclose = () => transport.onclose?.();
  inner.onerror = (error) => transport.onerror?.(error);
  inner.onmessage = (message, extra) => {
    const id = "id" in message ? message.id : undefined;
    const answer = typeof id === "string" ? waiting.get(id) : undefined;
    if (answer === undefined || !("result" in message || "error" in message)) {
      transport.onmessage?.(message, extra);
      return;
    }
    waiting.delete(id as string);
    answer(
      "error" in message
        ? { kind: "error", error: message.error as never }
        : { kind: "result", result: message.result as never },
    );
  };
  const dispatch: RawClientDispatch = (request, options) => {
    const id = `raw-${++next}`;
    const answered = new Promise<Response>((resolve, reject) => {
      waiting.set(id, resolve);
      options?.signal?.addEventListener(
        "abort",
        () => {
          waiting.delete(id);
          reject(options.signal?.reason);
        },
        { once: true },
      );
    });
    const message = { ...(request as Record<string, unknown>), jsonrpc: "2.0", id } as JSONRPCMessage;
    return inner.send(message).then(() => answered);
  };
  return { transport, dispatch };
}
