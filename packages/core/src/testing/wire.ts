import type { Connection } from "../connection/connection.js";
import type { Delivery } from "../connection/outlet.js";
import type { AuthInfo, Era } from "../context/context.js";
import { MetaKey, type ProtocolVersion } from "../protocol/versions.js";
import type { Server } from "../server/servable.js";
import { McpError, messageOf } from "../wire/errors.js";
import {
  isPlainObject,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcResponse,
  type RequestId,
} from "../wire/json-rpc.js";
import type { Implementation } from "../wire/types.js";

// The in-memory wire: every line between the test client and the server, recorded, and each reply matched to its call.

/** One message that crossed the in-memory wire, as the JSON text it was. */
export interface WireRecord {
  direction: "in" | "out";
  line: string;
  message: JsonRpcMessage;
}

/** A request's result and everything the server said while serving it. */
export interface Exchange {
  result: Record<string, unknown>;
  /** Notifications sent while serving it (progress, logs), in order, across every input round. */
  notifications: JsonRpcNotification[];
  /** Requests the server sent the client while serving it (handshake era), in order. */
  requests: { method: string; params: Record<string, unknown> }[];
  /** 2026-07-28: how many `input_required` rounds were answered before the result. */
  rounds: number;
}

/** Options of one call. */
export interface CallOptions {
  /**
   * Aborting it cancels the request as a client of its era does (`notifications/cancelled` with its id; between
   * 2026-07-28 input rounds, by not retrying) and rejects the call with the signal's reason (an AbortError).
   */
  signal?: AbortSignal;
}

/** Who the client says it is, on `initialize` or in every 2026-07-28 request's `_meta`. */
export interface Speaker {
  era: Era;
  protocolVersion: ProtocolVersion;
  clientInfo: Implementation;
  capabilities: Record<string, unknown>;
}

/** A client request waiting for its reply. */
export interface Waiting {
  resolve(response: JsonRpcResponse): void;
  /** The call fails on the client's side (aborted, or the test's own handler threw): cancel it on the server. */
  fail(error: unknown, reason: string): void;
  notifications: JsonRpcNotification[];
  requests: { method: string; params: Record<string, unknown> }[];
  /** The server-side error behind a generic -32603 reply. */
  cause?: unknown;
  /** The test's handlers answering the server's requests made for this call (handshake era). */
  answering: Set<AbortController>;
}

/** Answers the requests the server sends the client, and hears them withdrawn (`notifications/cancelled`). */
export interface Answerer {
  ask(id: RequestId, method: string, params: Record<string, unknown>, related: Waiting | undefined, wire: Wire): void;
  withdraw(id: unknown): void;
}

/** The test client's end of an in-memory connection to a server. */
export class Wire {
  /** Every line exchanged, in order: "in" is client → server. */
  readonly messages: WireRecord[] = [];
  /** Every notification the server sent, in order. */
  readonly notifications: JsonRpcNotification[] = [];
  /** Client requests waiting for their reply, by `keyOf(id)`. */
  readonly waiting = new Map<string, Waiting>();
  /** Open listen streams, by `keyOf(id)`: each takes the notifications carrying its subscription id. */
  readonly streams = new Map<string, (notification: JsonRpcNotification) => void>();
  readonly speaker: Speaker;
  readonly #connection: Connection;
  readonly #answerer: Answerer;
  // Where `send` collects the raw reply lines of the line it sent.
  #rawReplies: string[] | undefined;
  #nextId = 0;
  #closed: Error | undefined;

  constructor(server: Server, speaker: Speaker, auth: AuthInfo | undefined, answerer: Answerer) {
    this.speaker = speaker;
    this.#answerer = answerer;
    this.#connection = server.connect({
      send: (line, delivery) => this.#onServerLine(line, delivery),
      ...(auth ? { auth } : {}),
      // A test is its server's local user: without `auth` it holds every scope, with one exactly that one's.
      holdsEveryScope: true,
      onInternalError: (error, id) => {
        const entry = this.waiting.get(keyOf(id));
        if (entry) entry.cause = error;
      },
    });
  }

  /** Set by `close()`: every call waiting then was rejected with it, and every later one is. */
  get closed(): Error | undefined {
    return this.#closed;
  }

  /** A fresh request id. */
  nextId(): number {
    return this.#nextId++;
  }

  #onServerLine(line: string, delivery: Delivery): void {
    const message = safeParse(line);
    this.messages.push({ direction: "out", line, message });
    if (delivery.kind === "response") {
      this.#rawReplies?.push(line);
      const key = keyOf((message as { id?: unknown }).id);
      const entry = this.waiting.get(key);
      if (entry) {
        this.waiting.delete(key);
        entry.resolve(message as JsonRpcResponse);
      }
      return;
    }
    if (delivery.kind === "request") {
      const { id, method, params } = message as { id: RequestId; method: string; params?: Record<string, unknown> };
      const related = delivery.relatedTo === undefined ? undefined : this.waiting.get(keyOf(delivery.relatedTo));
      related?.requests.push({ method, params: params ?? {} });
      this.#answerer.ask(id, method, params ?? {}, related, this);
      return;
    }
    const notification = message as JsonRpcNotification;
    this.notifications.push(notification);
    if (notification.method === "notifications/cancelled") this.#answerer.withdraw(notification.params?.requestId);
    const subscription = (notification.params?._meta as Record<string, unknown> | undefined)?.[MetaKey.subscriptionId];
    if (subscription !== undefined) this.streams.get(keyOf(subscription))?.(notification);
    else if (delivery.relatedTo !== undefined)
      this.waiting.get(keyOf(delivery.relatedTo))?.notifications.push(notification);
  }

  /** Record `message` and hand it to the server, not waiting for what it causes. */
  deliver(message: Record<string, unknown>): void {
    const line = JSON.stringify(message);
    this.messages.push({ direction: "in", line, message: safeParse(line) });
    void this.#connection.receive(line);
  }

  /** Send raw text exactly as given; resolves to the reply line, if any. */
  async send(line: string): Promise<string | undefined> {
    this.messages.push({ direction: "in", line, message: safeParse(line) });
    const replies: string[] = [];
    const previous = this.#rawReplies;
    this.#rawReplies = replies;
    try {
      await this.#connection.receive(line);
    } finally {
      this.#rawReplies = previous;
    }
    previous?.push(...replies);
    return replies[0];
  }

  /** Send a notification, with the 2026-07-28 `_meta` where the era wants it. */
  async notify(method: string, params?: Record<string, unknown>): Promise<void> {
    const full = this.withMeta(params);
    await this.send(
      JSON.stringify(full === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params: full }),
    );
  }

  /** `params` with the client's `_meta` of 2026-07-28 (its own `_meta` keys win); as they are in the handshake era. */
  withMeta(params: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
    const { era, protocolVersion, clientInfo, capabilities } = this.speaker;
    if (era === "handshake") return params;
    const meta = isPlainObject(params?._meta) ? params._meta : {};
    return {
      ...params,
      _meta: {
        [MetaKey.protocolVersion]: protocolVersion,
        [MetaKey.clientInfo]: clientInfo,
        [MetaKey.clientCapabilities]: capabilities,
        ...meta,
      },
    };
  }

  /** The client gives up on a request: it tells the server, which stops the handler and answers nothing. */
  cancel(id: RequestId, reason: string): void {
    this.deliver({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: this.withMeta({ requestId: id, reason }),
    });
  }

  /**
   * One request and its reply: resolves to its result, rejects with an McpError for an error reply (the server-side
   * error behind a generic -32603 is its `cause`). Aborting `signal` cancels it.
   */
  call(
    method: string,
    params: Record<string, unknown> | undefined,
    into: Exchange,
    signal: AbortSignal | undefined,
  ): Promise<Record<string, unknown>> {
    if (this.#closed) return Promise.reject(this.#closed);
    if (signal?.aborted) return Promise.reject(signal.reason);
    const id: RequestId = this.nextId();
    const key = keyOf(id);
    const full = this.withMeta(params);
    return new Promise((resolve, reject) => {
      const onAbort = () => entry.fail(signal?.reason, abortReason(signal?.reason));
      const entry: Waiting = {
        notifications: into.notifications,
        requests: into.requests,
        answering: new Set(),
        resolve: (response) => {
          signal?.removeEventListener("abort", onAbort);
          if (!("error" in response)) return resolve(response.result);
          const { code, message, data } = response.error;
          const cause = entry.cause;
          reject(new McpError(code, message, data, cause === undefined ? undefined : { cause }));
        },
        fail: (error, reason) => {
          if (this.waiting.get(key) !== entry) return;
          this.waiting.delete(key);
          signal?.removeEventListener("abort", onAbort);
          this.cancel(id, reason);
          for (const controller of entry.answering) controller.abort(error);
          reject(error);
        },
      };
      this.waiting.set(key, entry);
      signal?.addEventListener("abort", onAbort, { once: true });
      this.deliver(full === undefined ? { jsonrpc: "2.0", id, method } : { jsonrpc: "2.0", id, method, params: full });
    });
  }

  /** Close the connection: every call still waiting is cancelled and rejects with `error`, as is every later one. */
  close(error: Error): void {
    this.#closed = error;
    for (const entry of [...this.waiting.values()]) entry.fail(error, error.message);
    this.#connection.close(error);
  }
}

/** What the server is told when an aborted call is cancelled. */
export function abortReason(reason: unknown): string {
  return reason instanceof Error || typeof reason === "string" ? messageOf(reason) : "aborted by the test client";
}

/** The key of a request id in the maps above: `1` and `"1"` are different requests. */
export function keyOf(id: unknown): string {
  return typeof id === "string" ? `s${id}` : `n${String(id)}`;
}

function safeParse(line: string): JsonRpcMessage {
  try {
    return JSON.parse(line) as JsonRpcMessage;
  } catch {
    return { jsonrpc: "2.0", method: "(unparseable)", params: { line } };
  }
}
