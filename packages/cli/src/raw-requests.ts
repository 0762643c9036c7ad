import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/client";

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

/** Requests the CLI sends past the official client, on the same connection. */
export interface RawChannel {
  /** Send `method` and await its result; `onProgress` hears the `notifications/progress` of `progressToken`. */
  request(
    method: string,
    params: Record<string, unknown>,
    onProgress?: (progress: ProgressParams) => void,
  ): Promise<Record<string, unknown>>;
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

/**
 * `transport` as the official client sees it (the messages it never sent filtered out), and a channel for raw
 * requests over it; raw requests are valid once the client has connected.
 */
export function tapTransport<T extends Transport>(transport: T): { transport: T; raw: RawChannel } {
  const pending = new Map<string, Pending>();
  let next = 0;
  let clientReceive: Receive | undefined;
  const receive: Receive = (message, extra) => {
    const m = message as { id?: unknown; method?: string; params?: { progressToken?: unknown } };
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
    clientReceive?.(message, extra);
  };
  // A connection that closes (a stdio server that died) answers what it left unanswered, so no caller waits forever.
  const closed = () => {
    for (const waiting of pending.values()) waiting.reject(new Error("the connection to the server closed"));
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
      const value = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  const raw: RawChannel = {
    request(method, params, onProgress) {
      next += 1;
      const id = `toolsmith-raw-${next}`;
      const meta = { ...(params._meta as Record<string, unknown> | undefined), progressToken: id };
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject, ...(onProgress ? { onProgress } : {}) });
        const message = { jsonrpc: "2.0", id, method, params: { ...params, _meta: meta } } as JSONRPCMessage;
        transport.send(message).catch((error: unknown) => {
          pending.delete(id);
          reject(error instanceof Error ? error : new Error(String(error)));
        });
      });
    },
  };
  return { transport: tapped, raw };
}
