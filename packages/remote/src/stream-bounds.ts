import type { IncomingMessage } from "node:http";
import { EventSplitter, type StreamEvent } from "./events.js";

// An event stream read straight off node's response as it arrives (no web stream in between: it cost a promise and
// some objects per chunk), split into events (events.ts), each bounded, a call's logs taken out for its caller.
// The lane reads the events themselves; the official client gets them again as the bytes of an event stream.

/** Room for the envelope and framing around a result of `maxResultBytes` (its JSON text is checked again after). */
export const FRAMING_BYTES = 64 * 1024;

export interface StreamBounds {
  /** The answer's bound; an event or body past it (plus framing) is cut. */
  readonly maxBytes: number;
  /** A `notifications/message` read on the stream, taken out of it (without, it passes on). */
  readonly log?: (params: Record<string, unknown>) => void;
  /** End the call the answer serves with `message`, after the remote's name: the answer is too large, or refused. */
  cut(message: string): void;
}

/** How many events wait for their reader before the socket is no longer read. */
const QUEUED_EVENTS = 16;
/** How long a stream read no further (its reply taken) may stay open before the gateway hangs up. */
const LINGER_MS = 1000;

interface Sink {
  event(event: StreamEvent): void;
  end(): void;
  fail(error: Error): void;
}

// Feeds `response` to a splitter as it comes: each event (but a call's log) to `sink`, then its end or why it failed.
function follow(response: IncomingMessage, bounds: StreamBounds, sink: Sink): { drop(): void } {
  let settled = false;
  let dropped = false;
  const fail = (error: Error) => {
    if (settled) return;
    settled = true;
    sink.fail(error);
  };
  const splitter = new EventSplitter(bounds.maxBytes + FRAMING_BYTES, (event) => {
    if (!dropped && !takeLog(event, bounds)) sink.event(event);
  });
  response.on("data", (chunk: Buffer) => {
    if (dropped || settled || splitter.push(chunk)) return;
    const message = `answered with more than ${bounds.maxBytes} bytes`;
    bounds.cut(message);
    const error = new Error(message);
    fail(error);
    response.destroy(error);
  });
  response.once("end", () => {
    if (settled) return;
    if (!dropped) splitter.end();
    settled = true;
    sink.end();
  });
  response.once("error", fail);
  response.once("close", () => {
    if (!response.complete) fail(new Error("the connection closed before the answer ended"));
  });
  return {
    // The rest is read and dropped until it ends, so that its socket is kept alive for the next request; a remote
    // that keeps it open past LINGER_MS is hung up on.
    drop() {
      if (dropped) return;
      dropped = true;
      settled = true;
      if (response.readableEnded || response.destroyed) return;
      const timer = setTimeout(() => response.destroy(), LINGER_MS);
      response.once("close", () => clearTimeout(timer));
      response.resume();
    },
  };
}

/** The events of an event stream, for the lane; what is left when the reader stops early is drained, or hung up on. */
export async function* readEvents(response: IncomingMessage, bounds: StreamBounds): AsyncGenerator<StreamEvent> {
  const queue: StreamEvent[] = [];
  let head = 0;
  let done = false;
  let failure: Error | undefined;
  let wake: (() => void) | undefined;
  const woken = () => {
    const resolve = wake;
    wake = undefined;
    resolve?.();
  };
  const followed = follow(response, bounds, {
    event(event) {
      queue.push(event);
      if (queue.length - head >= QUEUED_EVENTS) response.pause();
      woken();
    },
    end() {
      done = true;
      woken();
    },
    fail(error) {
      done = true;
      failure = error;
      woken();
    },
  });
  try {
    for (;;) {
      if (head < queue.length) {
        const event = queue[head++] as StreamEvent;
        if (head === queue.length) {
          queue.length = head = 0;
          if (!done && response.isPaused()) response.resume();
        }
        yield event;
      } else if (failure) throw failure;
      else if (done) return;
      else await new Promise<void>((resolve) => (wake = resolve));
    }
  } finally {
    if (!done) followed.drop();
  }
}

/**
 * An event stream as the official client reads it: its events again as bytes, bounded, a call's logs taken out. Once
 * the reply to `replyTo` (the id of the request it answers) is given, the stream ends there for the client and the
 * rest is drained, or hung up on, as the lane does: a remote that keeps it open would otherwise be read for ever.
 */
export function eventStream(
  response: IncomingMessage,
  bounds: StreamBounds,
  replyTo?: string | number,
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let open = true;
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        const followed = follow(response, bounds, {
          event(event) {
            if (!open) return;
            controller.enqueue(encoder.encode(textOf(event)));
            if (replyTo !== undefined && isReplyTo(event, replyTo)) {
              open = false;
              controller.close();
              followed.drop();
              return;
            }
            if ((controller.desiredSize ?? 0) <= 0) response.pause();
          },
          end() {
            if (open) controller.close();
            open = false;
          },
          fail(error) {
            if (open) controller.error(error);
            open = false;
          },
        });
      },
      pull() {
        if (open && response.isPaused()) response.resume();
      },
      cancel() {
        open = false;
        response.destroy();
      },
    },
    { highWaterMark: QUEUED_EVENTS },
  );
}

// An event as the bytes of an event stream (each field once, its data a line per line).
function textOf(event: StreamEvent): string {
  let text = "";
  if (event.type !== undefined) text += `event: ${event.type}\n`;
  if (event.id !== undefined) text += `id: ${event.id}\n`;
  if (event.retry !== undefined) text += `retry: ${event.retry}\n`;
  if (event.data !== undefined) text += `data: ${event.data.replaceAll("\n", "\ndata: ")}\n`;
  return `${text}\n`;
}

// Whether `event` carries the reply to the request with id `id` (a result or an error, not a request of the remote's).
function isReplyTo(event: StreamEvent, id: string | number): boolean {
  const data = event.data;
  if (data === undefined || !data.startsWith("{") || !(data.includes('"result"') || data.includes('"error"'))) {
    return false;
  }
  try {
    const message = JSON.parse(data) as unknown;
    return isObject(message) && message.id === id && message.method === undefined;
  } catch {
    return false;
  }
}

// A call's log (a `notifications/message` on its stream) given to its caller, and not passed on.
function takeLog(event: StreamEvent, bounds: StreamBounds): boolean {
  const data = event.data;
  if (!bounds.log || data === undefined || !data.startsWith("{") || !data.includes('"notifications/message"')) {
    return false;
  }
  let message: unknown;
  try {
    message = JSON.parse(data);
  } catch {
    return false;
  }
  if (!isObject(message) || message.method !== "notifications/message" || message.id !== undefined) return false;
  if (!isObject(message.params)) return false;
  bounds.log(message.params);
  return true;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
