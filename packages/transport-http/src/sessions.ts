import { type AuthInfo, type Connection, featuresOf, type ProtocolVersion } from "@toolsmith/core";
import { CallerCounts } from "./caller-limits.js";
import type { EventStream } from "./event-stream.js";
import { JSON_HEADERS } from "./exchange.js";
import { handshakeStatus } from "./refusals.js";
import type { EventLog, ReplyOptions } from "./reply.js";

interface Recorded {
  readonly seq: number;
  readonly key: string;
  readonly data: string;
}

/** One handshake-era client: its connection, its standalone GET stream, and the events kept for resumption. */
export class HttpSession implements EventLog {
  readonly id: string;
  readonly connection: Connection;
  readonly subject: string | undefined;
  version: ProtocolVersion | undefined;
  /** What every POST's reply in this session is made with: made once, not per POST. */
  readonly replies: ReplyOptions;
  lastSeen = Date.now();
  /** The standalone GET stream (server-to-client messages that belong to no request), if one is open. */
  get: EventStream | undefined;
  readonly #events: Recorded[] = [];
  readonly #keep: number;
  readonly #resumed = new Map<string, EventStream>();
  readonly #open = new Set<string>();
  #seq = 0;
  #streams = 0;

  constructor(id: string, connection: Connection, subject: string | undefined, keep: number) {
    this.id = id;
    this.connection = connection;
    this.subject = subject;
    this.#keep = keep;
    const headers = { "mcp-session-id": id };
    this.replies = { status: handshakeStatus, headers, jsonHeaders: { ...JSON_HEADERS, ...headers }, log: this };
  }

  /** Whether the session's revision opens an SSE stream with a priming event (2025-11-25). */
  get priming(): boolean {
    return this.version !== undefined && featuresOf(this.version).ssePriming;
  }

  /**
   * True for the caller who opened this session: the same subject, or, for a session opened unauthenticated, an
   * unauthenticated caller. A principal without a subject owns nothing, not even a session opened by another such.
   */
  ownedBy(auth: AuthInfo | undefined): boolean {
    if (auth === undefined) return this.subject === undefined;
    return typeof auth.subject === "string" && auth.subject.trim() !== "" && auth.subject === this.subject;
  }

  /** A new stream key for a POST's SSE reply. */
  nextKey(): string {
    return `post-${++this.#streams}`;
  }

  opened(key: string): void {
    this.#open.add(key);
  }

  record(key: string, data: string): string {
    const seq = ++this.#seq;
    this.#events.push({ seq, key, data });
    if (this.#events.length > this.#keep) this.#events.shift();
    return String(seq);
  }

  live(key: string): EventStream | undefined {
    return key === "get" ? this.get : this.#resumed.get(key);
  }

  finished(key: string): void {
    this.#open.delete(key);
    const resumed = this.#resumed.get(key);
    if (resumed) {
      this.#resumed.delete(key);
      resumed.close();
    }
  }

  /** A message that belongs to no open request: on the GET stream if there is one (kept for resumption either way). */
  unrelated(line: string): void {
    const id = this.record("get", line);
    this.get?.write(line, id);
  }

  /**
   * Resume after `lastEventId`: replay the later events of the same stream into `into`, and send that stream's
   * future events there too. False when the id is not one this session still holds.
   */
  resume(lastEventId: string, into: EventStream): boolean {
    const seq = Number(lastEventId);
    const from = this.#events.find((event) => event.seq === seq);
    if (!Number.isSafeInteger(seq) || !from) return false;
    for (const event of this.#events) {
      if (event.key === from.key && event.seq > seq && event.data !== "") into.write(event.data, String(event.seq));
    }
    if (from.key === "get") {
      this.get?.close();
      this.get = into;
    } else if (!this.#open.has(from.key)) {
      into.close();
    } else {
      this.#resumed.get(from.key)?.close();
      this.#resumed.set(from.key, into);
    }
    return true;
  }

  close(): void {
    this.connection.endSubscriptions();
    this.connection.close(new Error("session ended"));
    this.get?.close();
    for (const stream of this.#resumed.values()) stream.close();
    this.#resumed.clear();
  }
}

/** The open sessions: bounded in number, in all and per caller, ended when idle too long. */
export class SessionStore {
  readonly #sessions = new Map<string, HttpSession>();
  readonly #max: number;
  readonly #idleMs: number;
  readonly #callers: CallerCounts;
  // Which caller holds each session (by session id), given back when it ends.
  readonly #holders = new Map<string, string>();
  #sweeper: ReturnType<typeof setInterval> | undefined;

  constructor(max: number, idleMs: number, perCaller: number) {
    this.#max = max;
    this.#idleMs = idleMs;
    this.#callers = new CallerCounts(perCaller);
  }

  /** Sessions one caller may hold. */
  get perCaller(): number {
    return this.#callers.limit;
  }

  get size(): number {
    return this.#sessions.size;
  }

  get full(): boolean {
    this.#sweep();
    return this.#sessions.size >= this.#max;
  }

  /** True when `caller` holds as many sessions as one caller may (expired ones are ended first). */
  fullFor(caller: string | undefined): boolean {
    this.#sweep();
    return !this.#callers.has(caller);
  }

  get(id: string): HttpSession | undefined {
    const session = this.#sessions.get(id);
    if (!session) return undefined;
    const now = Date.now();
    if (now - session.lastSeen > this.#idleMs) {
      this.delete(id);
      return undefined;
    }
    session.lastSeen = now;
    return session;
  }

  add(session: HttpSession, caller?: string): void {
    this.#sessions.set(session.id, session);
    if (caller !== undefined && this.#callers.take(caller)) this.#holders.set(session.id, caller);
    if (!this.#sweeper) {
      this.#sweeper = setInterval(() => this.#sweep(), Math.min(this.#idleMs, 60_000));
      this.#sweeper.unref?.();
    }
  }

  delete(id: string): boolean {
    const session = this.#sessions.get(id);
    if (!session) return false;
    this.#sessions.delete(id);
    this.#callers.release(this.#holders.get(id));
    this.#holders.delete(id);
    session.close();
    if (this.#sessions.size === 0 && this.#sweeper) {
      clearInterval(this.#sweeper);
      this.#sweeper = undefined;
    }
    return true;
  }

  #sweep(): void {
    const now = Date.now();
    for (const [id, session] of this.#sessions) {
      // A client holding its GET stream open is not idle.
      if (session.get && !session.get.closed) session.lastSeen = now;
      else if (now - session.lastSeen > this.#idleMs) this.delete(id);
    }
  }

  closeAll(): void {
    for (const id of [...this.#sessions.keys()]) this.delete(id);
  }
}
