// The events of an event stream read by the lane (lane.ts): each event's data, and the id and retry the remote gave
// it, which say where a stream the remote ended may be taken up again (Last-Event-ID).

export interface StreamEvent {
  /** The event's data lines joined ("" for an event without data, such as the remote's priming event). */
  readonly data: string;
  /** The event's id, when it has one. */
  readonly id: string | undefined;
  /** The wait the remote asks for before coming back, in ms, when it gives one. */
  readonly retry: number | undefined;
}

function parseEvent(text: string): StreamEvent {
  const data: string[] = [];
  let id: string | undefined;
  let retry: number | undefined;
  for (const line of text.split("\n")) {
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? "" : line.slice(line[colon + 1] === " " ? colon + 2 : colon + 1);
    if (field === "data") data.push(value);
    else if (field === "id" && !value.includes("\0")) id = value;
    else if (field === "retry" && /^\d+$/.test(value)) retry = Number(value);
  }
  return { data: data.join("\n"), id, retry };
}

/** The events of `body` as they come; what is left when the reader stops early is drained, or hung up on. */
export async function* events(body: ReadableStream<Uint8Array>): AsyncGenerator<StreamEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let ended = false;
  try {
    for (;;) {
      const read = await reader.read();
      ended = read.done;
      if (read.done) break;
      buffer += decoder.decode(read.value, { stream: true });
      let end = buffer.indexOf("\n\n");
      while (end !== -1) {
        const event = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (event !== "") yield parseEvent(event);
        end = buffer.indexOf("\n\n");
      }
    }
  } finally {
    if (ended) reader.releaseLock();
    else void drain(reader);
  }
}

/** How long a stream read no further (its reply taken) may stay open before the gateway hangs up. */
const LINGER_MS = 1000;

// The rest of a stream whose reader stopped early (the reply read, or a failure) is read and dropped until it ends,
// so that its socket is kept alive for the next request; a remote that keeps it open past LINGER_MS is hung up on.
async function drain(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
  const timer = setTimeout(() => void reader.cancel().catch(() => undefined), LINGER_MS);
  try {
    for (;;) if ((await reader.read()).done) break;
  } catch {
    // Cancelled, or the connection failed: either way the stream is over.
  } finally {
    clearTimeout(timer);
  }
}

/** Wait `ms`, or until `signal` aborts (then its reason is thrown). */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const stopped = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", stopped);
      resolve();
    }, ms);
    signal.addEventListener("abort", stopped, { once: true });
  });
}
