import type { MaybePromise, Server } from "@toolsmith/core";
import { EngineUnavailable, isEngineUnavailable } from "@toolsmith/core/engine";
import { attempt } from "@toolsmith/core/internal";

/** The server's engine as the transport starts it: `ready` before what needs it, `started` once it is. */
export interface EngineStart {
  /** The engine started (once; later calls are free); an `EngineUnavailable` when it cannot start yet. */
  ready(): MaybePromise<void>;
  /** True once it has. */
  readonly started: boolean;
  /** Try no more (the handler closed). */
  stop(): void;
}

/**
 * Start `server`'s engine now, so what this process announces reaches the other processes before it serves
 * anything (`listen` starts it before serving). The server starts it once and a failed start again when asked
 * (`server.startEngine()`); this asks again with the next request, and by itself after a while (up to every 10 s),
 * so a process started while Redis was down recovers unasked.
 */
export function startEngine(server: Server, onError: (error: unknown) => void): EngineStart {
  let started = false;
  let retry: ReturnType<typeof setTimeout> | undefined;
  let retries = 0;
  let stopped = false;
  const again = () => {
    if (retry !== undefined || stopped) return;
    retry = setTimeout(
      () => {
        retry = undefined;
        void attempt(ready, () => undefined);
      },
      Math.min(10_000, 500 * 2 ** retries++),
    );
    (retry as { unref?: () => void }).unref?.();
  };
  // A start refused for another reason than reach (a Redis that may evict its keys, say) is said once, and answered
  // as an engine away (503 + Retry-After, tried again), never as a bare 500: it may be fixed while the process runs.
  let toldRefusal: string | undefined;
  const told = new WeakSet<object>();
  const unstarted = (error: unknown): unknown => {
    if (isEngineUnavailable(error)) return error;
    const message = error instanceof Error ? error.message : String(error);
    if (message !== toldRefusal) {
      toldRefusal = message;
      onError(error);
    }
    const away = new EngineUnavailable(`The engine could not start: ${message}`, { cause: error });
    told.add(away);
    return away;
  };
  const failed = (error: unknown): never => {
    again();
    throw unstarted(error);
  };
  const ready = (): MaybePromise<void> => {
    if (started) return;
    let start: MaybePromise<void>;
    try {
      start = server.startEngine();
    } catch (error) {
      // An engine whose start throws at once is told and answered as one whose start rejects.
      return failed(error);
    }
    if (!(start instanceof Promise)) {
      started = true;
      return;
    }
    return start.then(() => {
      started = true;
      if (retry !== undefined) clearTimeout(retry);
      retry = undefined;
    }, failed);
  };
  // Started now; a request that needs the engine waits for it.
  void attempt(ready, (error) => {
    if (!told.has(error as object)) onError(error);
  });
  return {
    ready,
    get started() {
      return started;
    },
    stop() {
      stopped = true;
      if (retry !== undefined) clearTimeout(retry);
    },
  };
}
