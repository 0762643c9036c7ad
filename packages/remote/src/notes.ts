import type { Client, JSONRPCMessage } from "@modelcontextprotocol/client";
import { isLogLevel, type LogEntry, type LogLevel, type RequestContext } from "@toolsmith/core";
import type { BoundsFor } from "./http.js";

// The remote's notifications, heard on the client's transport as each arrives (the client 2.4.0 hands them to its
// handlers a turn late and forgets a call's progress handler once it reads the reply): a call's progress and logs go
// to that call's caller only, before its reply; what no call owns goes to the gateway's own log, at a bounded rate.

/** The most notifications (progress and logs) one call relays; past it they are counted and dropped. */
export const MAX_RELAYED_PER_CALL = 1000;
/** The most of the remote's logs tied to no call written to the gateway's log per window. */
export const MAX_STRAY_LOGS = 100;
const STRAY_WINDOW_MS = 10_000;
/** The longest progress message or log data (as JSON text) relayed; past it, cut to this many characters. */
export const MAX_NOTE_CHARS = 16 * 1024;
/** The longest logger name a relayed log keeps; past it, cut to this many characters. */
export const MAX_LOGGER_CHARS = 128;
const TOKEN_PREFIX = "toolsmith-remote-";

interface Call {
  readonly ctx: RequestContext;
  readonly cut: AbortController;
  cutShort: boolean;
  relayed: number;
  dropped: number;
}

/** One forwarded call as the notes see it: its progress token, a signal the notes abort to cut it, and its end. */
export interface TrackedCall {
  readonly token: string;
  /** Aborted when the caller cancels (`cancel`), or (with an Error naming why) when the answer must be cut short. */
  readonly signal: AbortSignal;
  /** Whether the notes cut the answer short (too large as it arrived). */
  readonly cut: boolean;
  /** The caller cancelled: the request to the remote is stopped. */
  cancel(reason: unknown): void;
  /** The call is over: later notes for it are dropped; tells the caller how many were dropped, if any. */
  close(): void;
}

type Receive = (message: JSONRPCMessage, extra?: unknown) => void;

export class Notes {
  readonly #label: string;
  readonly #log: (entry: LogEntry) => void;
  readonly #calls = new Map<string, Call>();
  readonly #tapped = new WeakSet<object>();
  // Clients whose stdio transport closed on a line over its bound.
  readonly #overflowed = new WeakSet<Client>();
  #strayWindow = 0;
  #strays = 0;
  #strayDropped = 0;

  constructor(label: string, log: (entry: LogEntry) => void) {
    this.#label = label;
    this.#log = log;
  }

  /** A call about to be forwarded on behalf of `ctx`. */
  track(ctx: RequestContext): TrackedCall {
    // Unguessable: a remote learns only the tokens of the calls it was sent.
    const token = `${TOKEN_PREFIX}${globalThis.crypto.randomUUID()}`;
    const call: Call = { ctx, cut: new AbortController(), cutShort: false, relayed: 0, dropped: 0 };
    this.#calls.set(token, call);
    return {
      token,
      signal: call.cut.signal,
      get cut() {
        return call.cutShort;
      },
      cancel: (reason) => call.cut.abort(reason),
      close: () => {
        if (this.#calls.get(token) !== call) return;
        this.#calls.delete(token);
        if (call.dropped > 0) {
          const message = `${this.#label} sent ${call.dropped} more notifications than the ${MAX_RELAYED_PER_CALL} relayed`;
          call.ctx.log.warning(message);
          this.#log({ level: "warning", message });
        }
      },
    };
  }

  /** Hear `client`'s transport first (once per client): progress and logs are taken before the client sees them. */
  tap(client: Client): void {
    const transport = client.transport as { onmessage?: Receive } | undefined;
    if (!transport || this.#tapped.has(transport)) return;
    this.#tapped.add(transport);
    const inner = transport.onmessage;
    transport.onmessage = (message, extra) => {
      if (!this.#take(message)) inner?.call(transport, message, extra);
    };
    const tapped = transport as { onerror?: (error: Error) => void };
    const onerror = tapped.onerror;
    tapped.onerror = (error) => {
      if (/ReadBuffer exceeded maximum size/.test(String(error?.message))) this.#overflowed.add(client);
      onerror?.call(transport, error);
    };
  }

  /** Whether `client`'s connection closed because the remote wrote a line longer than the bound. */
  overflowed(client: Client): boolean {
    return this.#overflowed.has(client);
  }

  /** A notification read outside the client (lane.ts): progress and logs go where #take sends them. */
  hear(message: unknown): void {
    this.#take(message as JSONRPCMessage);
  }

  /** True when the message was a notification the notes took (the client never sees it). */
  #take(message: JSONRPCMessage): boolean {
    const m = message as { id?: unknown; method?: unknown; params?: Record<string, unknown> };
    if (m.id !== undefined || typeof m.method !== "string") return false;
    if (m.method === "notifications/progress") {
      const token = m.params?.progressToken;
      if (typeof token !== "string" || !token.startsWith(TOKEN_PREFIX)) return false;
      this.#progress(token, m.params ?? {});
      return true;
    }
    if (m.method === "notifications/message") {
      this.#stray(m.params ?? {});
      return true;
    }
    return false;
  }

  #relay(token: string | undefined): Call | undefined {
    const call = token === undefined ? undefined : this.#calls.get(token);
    if (!call) return undefined;
    if (call.relayed >= MAX_RELAYED_PER_CALL) {
      call.dropped++;
      return undefined;
    }
    call.relayed++;
    return call;
  }

  #progress(token: string, params: Record<string, unknown>): void {
    const call = this.#relay(token);
    const { progress, total, message } = params;
    if (!call || typeof progress !== "number") return;
    try {
      call.ctx.progress(
        progress,
        typeof total === "number" ? total : undefined,
        typeof message === "string" ? cutText(message) : undefined,
      );
    } catch {
      // A remote whose progress does not grow is not the caller's problem: that step is not relayed.
    }
  }

  /** A log the remote sent on the answer stream of the call with `token`: that call's caller hears it. */
  callLog(token: string, params: Record<string, unknown>): void {
    const call = this.#relay(token);
    if (!call) return;
    const level: LogLevel = isLogLevel(params.level) ? params.level : "info";
    const log =
      typeof params.logger === "string" ? call.ctx.log.named(cutText(params.logger, MAX_LOGGER_CHARS)) : call.ctx.log;
    log[level](boundedData(params.data) as never);
  }

  // A log no call owns (stdio carries nothing that ties one to a call): the gateway's own log, never a client's.
  #stray(params: Record<string, unknown>): void {
    const now = Date.now();
    if (now - this.#strayWindow >= STRAY_WINDOW_MS) {
      if (this.#strayDropped > 0) {
        this.#log({
          level: "warning",
          message: `${this.#label}: ${this.#strayDropped} of its log messages were dropped (over ${MAX_STRAY_LOGS} in ${STRAY_WINDOW_MS / 1000} s)`,
        });
      }
      this.#strayWindow = now;
      this.#strays = 0;
      this.#strayDropped = 0;
    }
    if (this.#strays >= MAX_STRAY_LOGS) {
      this.#strayDropped++;
      return;
    }
    this.#strays++;
    const level: LogLevel = isLogLevel(params.level) ? params.level : "info";
    const data = params.data;
    const logger = typeof params.logger === "string" ? ` (${cutText(params.logger, MAX_LOGGER_CHARS)})` : "";
    const text = typeof data === "string" ? data : JSON.stringify(data ?? null);
    this.#log({ level, message: `${this.#label}${logger}: ${text.length > 2000 ? `${text.slice(0, 2000)}…` : text}` });
  }

  /**
   * The bounds of one HTTP answer (http.ts): every answer is cut once over `maxBytes` (before anything holds it
   * whole); the logs on the event stream answering one of our calls are given to that call's caller.
   */
  boundsFor(maxBytes: () => number): BoundsFor {
    return (body) => {
      const token = tokenOf(body);
      const call = token === undefined ? undefined : this.#calls.get(token);
      // What no call sent (initialize, a list, the standalone GET stream) is bounded too; its logs are left to #take.
      return {
        maxBytes: maxBytes(),
        // A call's request stops when the call does: the client only forgets a cancelled request, its answer would
        // still be read (and its socket held) until the remote ended it.
        ...(call ? { signal: call.cut.signal } : {}),
        ...(token !== undefined && call
          ? { log: (params: Record<string, unknown>) => this.callLog(token, params) }
          : {}),
        cut: (message: string) => {
          if (!call || call.cut.signal.aborted) return;
          call.cutShort = true;
          call.cut.abort(new Error(`${this.#label} ${message}`));
        },
      };
    };
  }
}

function cutText(text: string, max = MAX_NOTE_CHARS): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

// A log's data as it came, or, when its JSON text is past the bound, that text cut.
function boundedData(data: unknown): unknown {
  if (typeof data === "string") return cutText(data);
  const text = JSON.stringify(data ?? null);
  return text.length > MAX_NOTE_CHARS ? cutText(text) : data;
}

/** Our progress token in a request's body, if it is one of ours. */
function tokenOf(body: unknown): string | undefined {
  if (typeof body !== "string" || !body.includes(TOKEN_PREFIX)) return undefined;
  try {
    const token = (JSON.parse(body) as { params?: { _meta?: { progressToken?: unknown } } }).params?._meta
      ?.progressToken;
    return typeof token === "string" && token.startsWith(TOKEN_PREFIX) ? token : undefined;
  } catch {
    return undefined;
  }
}
