import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/client";
import type { LogLevel } from "@toolsmith/core";
import { MetaKey } from "@toolsmith/core/transport";
import { Unavailable } from "./transient.js";

// The official client 2.4.0 refuses `resultType: "task"` and the tasks/* methods, so the CLI sends those requests
// itself over the client's own transport: its ids and progress tokens are strings the client never uses.

/** A JSON-RPC error answer to a raw request. */
export class RawError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = "RawError";
  }
}

/** The connection closed before the answer (a stdio server that exited), or a request sent after it had. */
export class ConnectionClosed extends Error {
  constructor() {
    super("the connection to the server closed");
    this.name = "ConnectionClosed";
  }
}

/** No answer within the request's time-out. */
export class TimedOut extends Error {
  constructor(method: string, ms: number) {
    super(`no answer to ${method} within ${ms} ms`);
    this.name = "TimedOut";
  }
}

/** We stopped waiting for the answer (Ctrl-C); the server may still act on the request. */
export class Abandoned extends Error {
  constructor(method: string) {
    super(`stopped waiting for the answer to ${method}`);
    this.name = "Abandoned";
  }
}

/** The params of a `notifications/message`. */
export interface LogParams {
  level: string;
  logger?: string;
  data?: unknown;
}

export interface TapOptions {
  /** Time-out of each raw request, in milliseconds. */
  timeoutMs: number;
  /** Stamped as the 2026-07-28 `_meta` log level on every request that carries that era's envelope. */
  logLevel?: LogLevel;
  /** Hears every `notifications/message` (which the official client is then not given). */
  onLog?: (params: LogParams) => void;
}

/** Requests the CLI sends past the official client, on the same connection. */
export interface RawChannel {
  /**
   * Send `method` and await its result; `onProgress` hears the `notifications/progress` of `progressToken`; when
   * `signal` aborts (Ctrl-C), the wait ends at once with an `Abandoned`.
   */
  request(
    method: string,
    params: Record<string, unknown>,
    onProgress?: (progress: ProgressParams) => void,
    signal?: AbortSignal,
  ): Promise<Record<string, unknown>>;
  /**
   * Hear the progress of the official client's own requests (numeric tokens) here, as each arrives, instead of the
   * client (undefined: the client again). The client hands a notification to its handler a turn later, and a reply
   * read in the same chunk drops that handler first: the progress a server sent just before its answer was lost.
   */
  hearClientProgress(listener: ((progress: ProgressParams) => void) | undefined): void;
}

/** The params of a `notifications/progress`. */
export interface ProgressParams {
  progressToken: string | number;
  progress: number;
  total?: number;
  message?: string;
}

interface Pending {
  resolve(result: Record<string, unknown>): void;
  reject(error: Error): void;
  onProgress?: (progress: ProgressParams) => void;
}

type Receive = (message: JSONRPCMessage, extra?: unknown) => void;

/** `message` with the log level in its `_meta` when it is a request in the 2026-07-28 envelope. */
function stamped(message: JSONRPCMessage, level: LogLevel | undefined): JSONRPCMessage {
  const m = message as { id?: unknown; method?: unknown; params?: { _meta?: Record<string, unknown> } };
  const meta = m.params?._meta;
  if (level === undefined || m.id === undefined || typeof m.method !== "string") return message;
  if (meta?.[MetaKey.protocolVersion] === undefined || meta[MetaKey.logLevel] !== undefined) return message;
  return { ...m, params: { ...m.params, _meta: { ...meta, [MetaKey.logLevel]: level } } } as unknown as JSONRPCMessage;
}

/**
 * `transport` as the official client sees it (the messages it never sent filtered out, log messages taken, its
 * 2026 requests stamped with the log level), a channel for raw requests over it (valid once the client has
 * connected), and whether the connection closed under us.
 */
export function tapTransport<T extends Transport>(
  transport: T,
  options: TapOptions,
): { transport: T; raw: RawChannel; closed(): boolean } {
  const pending = new Map<string, Pending>();
  let next = 0;
  let isClosed = false;
  let clientReceive: Receive | undefined;
  let clientProgress: ((progress: ProgressParams) => void) | undefined;
  const receive: Receive = (message, extra) => {
    const m = message as { id?: unknown; method?: string; params?: { progressToken?: unknown } };
    if (m.method === "notifications/message" && m.id === undefined && options.onLog) {
      options.onLog(m.params as LogParams);
      return;
    }
    if (typeof m.id === "string" && pending.has(m.id) && m.method === undefined) {
      const waiting = pending.get(m.id) as Pending;
      pending.delete(m.id);
      const answer = message as {
        result?: Record<string, unknown>;
        error?: { code: number; message: string; data?: unknown };
      };
      if (answer.error) waiting.reject(new RawError(answer.error.code, answer.error.message, answer.error.data));
      else waiting.resolve(answer.result ?? {});
      return;
    }
    const token = m.method === "notifications/progress" ? m.params?.progressToken : undefined;
    if (typeof token === "string" && pending.has(token)) {
      pending.get(token)?.onProgress?.(m.params as ProgressParams);
      return;
    }
    if (typeof token === "number" && clientProgress !== undefined) {
      clientProgress(m.params as ProgressParams);
      return;
    }
    clientReceive?.(message, extra);
  };
  // A connection that closes (a stdio server that died) answers what it left unanswered, so no caller waits forever.
  const closed = () => {
    isClosed = true;
    for (const waiting of pending.values()) waiting.reject(new ConnectionClosed());
    pending.clear();
  };
  let clientClose: (() => void) | undefined;
  transport.onclose = closed;
  const tapped = new Proxy(transport, {
    set(target, key, value) {
      if (key === "onclose") {
        clientClose = value as (() => void) | undefined;
        (target as Transport).onclose = () => {
          closed();
          clientClose?.();
        };
        return true;
      }
      if (key === "onmessage") {
        clientReceive = value as Receive | undefined;
        (target as Transport).onmessage = receive as Transport["onmessage"];
        return true;
      }
      return Reflect.set(target, key, value);
    },
    get(target, key) {
      if (key === "onmessage") return clientReceive;
      if (key === "onclose") return clientClose;
      if (key === "send") {
        return (message: JSONRPCMessage, sendOptions?: Parameters<Transport["send"]>[1]) =>
          target.send(stamped(message, options.logLevel), sendOptions);
      }
      const value = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  const raw: RawChannel = {
    hearClientProgress(listener) {
      clientProgress = listener;
    },
    request(method, params, onProgress, signal) {
      if (isClosed) return Promise.reject(new ConnectionClosed());
      if (signal?.aborted) return Promise.reject(new Abandoned(method));
      next += 1;
      const id = `toolsmith-raw-${next}`;
      const meta = { ...(params._meta as Record<string, unknown> | undefined), progressToken: id };
      return new Promise((resolve, reject) => {
        const abandon = () => settle(() => reject(new Abandoned(method)));
        const settle = (then: () => void) => {
          clearTimeout(timer);
          signal?.removeEventListener("abort", abandon);
          pending.delete(id);
          then();
        };
        signal?.addEventListener("abort", abandon, { once: true });
        const timer = setTimeout(
          () => settle(() => reject(new TimedOut(method, options.timeoutMs))),
          options.timeoutMs,
        );
        pending.set(id, {
          resolve: (result) => settle(() => resolve(result)),
          reject: (error) => settle(() => reject(error)),
          ...(onProgress ? { onProgress } : {}),
        });
        const message = { jsonrpc: "2.0", id, method, params: { ...params, _meta: meta } } as JSONRPCMessage;
        // A Streamable HTTP answer stream that ends without the answer (a backend that died behind a proxy).
        const onRequestStreamEnd = () => {
          if (pending.has(id))
            settle(() => reject(new Unavailable(`the server's stream ended without an answer to ${method}`)));
        };
        transport.send(stamped(message, options.logLevel), { onRequestStreamEnd }).catch((error: unknown) => {
          settle(() => reject(error instanceof Error ? error : new Error(String(error))));
        });
      });
    },
  };
  return { transport: tapped, raw, closed: () => isClosed };
}
