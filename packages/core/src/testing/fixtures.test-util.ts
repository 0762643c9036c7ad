import type { RequestContext } from "../context/context.js";
import type { ClientHandler } from "./asks.js";
import type { WireRecord } from "./wire.js";

// Shared by the testing/ tests: promises settled from outside, handlers that wait, what the client sent.

/** A promise and the function that resolves it. */
export function deferred<T = void>(): { promise: Promise<T>; resolve(value: T): void } {
  let resolve: (value: T) => void = () => {};
  const promise = new Promise<T>((settle) => {
    resolve = settle;
  });
  return { promise, resolve };
}

/** Resolves with the abort reason once `ctx.signal` fires. */
export function aborted(ctx: RequestContext): Promise<unknown> {
  return new Promise((resolve) => ctx.signal.addEventListener("abort", () => resolve(ctx.signal.reason)));
}

/** The messages of `method` the client sent, in order. */
export function sent(client: { messages: readonly WireRecord[] }, method: string): WireRecord[] {
  return client.messages.filter(
    (record) => record.direction === "in" && (record.message as { method?: string }).method === method,
  );
}

/** Handlers that run until cancelled: each one's start is recorded, and a test can wait for the next start. */
export function starts(): {
  started: { ctx: RequestContext; aborted: Promise<unknown> }[];
  begin(ctx: RequestContext): Promise<unknown>;
  next(): Promise<void>;
} {
  const started: { ctx: RequestContext; aborted: Promise<unknown> }[] = [];
  let someoneStarted = deferred();
  return {
    started,
    // Called by a handler as it starts; resolves with its abort reason.
    begin(ctx) {
      const reason = aborted(ctx);
      started.push({ ctx, aborted: reason });
      someoneStarted.resolve();
      return reason;
    },
    // Resolves once a handler has started since the last call.
    next() {
      const waited = someoneStarted.promise;
      someoneStarted = deferred();
      return waited;
    },
  };
}

/** An elicit or sample handler that never answers; `signal` resolves to the signal it was given. */
export function unanswered(): { handler: ClientHandler; signal: Promise<AbortSignal> } {
  const asked = deferred<AbortSignal>();
  return {
    handler: (_params, { signal }) => {
      asked.resolve(signal);
      return new Promise(() => {});
    },
    signal: asked.promise,
  };
}
