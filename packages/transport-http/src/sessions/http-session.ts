import type { AuthInfo, MaybePromise, ProtocolVersion } from "@toolsmith/core";
import {
  type EngineLifecycle,
  type EventLog,
  isLeaseLost,
  type RequestLeases,
  type SessionChannel,
  type SessionRecord,
  type SessionSignal,
  type SessionStore,
  type StoredEvent,
  type Unfollow,
} from "@toolsmith/core/engine";
import { andThen, attempt } from "@toolsmith/core/internal";
import { type Connection, type Delivery, featuresOf } from "@toolsmith/core/transport";
import type { EventStream } from "../exchange/event-stream.js";
import { JSON_HEADERS } from "../exchange/exchange.js";
import type { PostReply, PostReplyOptions, PostStreamLog } from "../exchange/post-reply.js";
import { handshakeStatus, orphanedLine } from "../exchange/refusals.js";
import { HeldStreams } from "./held-streams.js";

/** True for a record opened by `auth`'s caller (a session opened unauthenticated: an unauthenticated caller). */
export function ownedBy(record: SessionRecord, auth: AuthInfo | undefined): boolean {
  const subject = record.principal?.subject;
  if (auth === undefined) return subject === undefined;
  return typeof auth.subject === "string" && auth.subject.trim() !== "" && auth.subject === subject;
}

/** What a live session uses of its engine: who this process is, its events, its channel, its requests' leases. */
export type LiveSessionEngine = EngineLifecycle & EventLog & SessionChannel & RequestLeases;

/** What the handshake era over HTTP uses of its engine: the store of sessions, and what a live session uses. */
export type SessionsEngine = SessionStore & LiveSessionEngine;

// POST stream keys are `<node>-<n>`, n counted per process: a session let go here and made again never reuses one.
let streams = 0;

/**
 * One handshake-era session as this process serves it: its live connection (made here, from the engine's record
 * when another process opened it), the streams held here, and what it follows of the session's channel. Handles
 * only, besides the id and version, which never change: the session's state is its engine record (the authority)
 * and its connection (this process's view of it), decision 0007.
 */
export class HttpSession implements PostStreamLog {
  readonly id: string;
  readonly engine: LiveSessionEngine;
  readonly version: ProtocolVersion;
  /** Set once made (the connection's `send` needs the session first). */
  connection!: Connection;
  /** What every POST's reply in this session is made with: made once, not per POST. */
  readonly replies: PostReplyOptions;
  readonly priming: boolean;
  /** When this process last served it (what the bounded cache of live sessions evicts by). */
  lastSeen = Date.now();
  /**
   * The client's requests being served here (their ids' JSON text), while they run: what a periodic check looks up
   * in the cancellations the engine kept (one missed on the bus still stops its handler).
   */
  readonly running = new Set<string>();
  /** Take the client lines the engine kept for this process (a `client` signal addressed to it woke it). */
  wake: () => void = () => {};
  readonly #onError: (error: unknown) => void;
  // The POST streams opened here (this process writes them), open or not.
  readonly #owned = new Set<string>();
  readonly #open = new Set<string>();
  // The lease of each open POST stream's request: true once the engine holds it (its events are then fenced).
  readonly #leases = new Map<string, MaybePromise<boolean>>();
  // Copies of this process's own POST streams resumed here: written along with the original.
  readonly #resumed = new Map<string, EventStream>();
  // Streams written from the session's signals: `get` and other processes' POST streams resumed here.
  readonly #held: HeldStreams;
  #unfollow: Unfollow | undefined;
  #closed = false;

  constructor(record: SessionRecord, engine: LiveSessionEngine, onError: (error: unknown) => void) {
    const { id, version } = record;
    this.id = id;
    this.engine = engine;
    this.version = version;
    this.priming = featuresOf(version).ssePriming;
    this.#onError = onError;
    this.#held = new HeldStreams(engine, id);
    const headers = { "mcp-session-id": id };
    this.replies = { status: handshakeStatus, headers, jsonHeaders: { ...JSON_HEADERS, ...headers }, log: this };
  }

  /** Hear the session's channel (before serving anything of it); `onEnded` when the session ends anywhere. */
  follow(onEnded: () => void): MaybePromise<void> {
    return andThen(
      this.engine.follow(this.id, (signal) => this.#heard(signal, onEnded)),
      (unfollow) => {
        if (this.#closed) void unfollow();
        else this.#unfollow = unfollow;
      },
    );
  }

  /** The GET stream held here, if open. */
  get get(): EventStream | undefined {
    return this.#held.get;
  }

  /** True while something of the session is held open here (a stream, a request being served). */
  get busy(): boolean {
    return this.#open.size > 0 || this.connection.pending > 0 || this.#held.open;
  }

  // ── PostStreamLog: the POST streams this process writes ──

  nextKey(): string {
    return `${this.engine.node}-${++streams}`;
  }

  opened(key: string, request: string | undefined): void {
    this.#owned.add(key);
    this.#open.add(key);
    if (request === undefined) return;
    const lease = attempt(
      () => andThen(this.engine.running({ session: this.id, request, stream: key }), () => true),
      (error) => {
        this.#onError(error);
        return false;
      },
    );
    this.#leases.set(key, lease);
  }

  write(
    key: string,
    data: string,
    stream: EventStream,
    last: boolean,
    request: string | undefined,
  ): MaybePromise<void> {
    // A request's events are kept only while its lease is this process's (once the lease is taken; none taken, none
    // to lose): one another process claimed (this one stalled past its lease) already has its answer there. The
    // priming event (no `request`) is not fenced, but waits for the lease too: once the client has its id, some
    // process answers the request.
    const lease = this.#leases.get(key) ?? false;
    const appended = andThen(lease, (held) =>
      attempt<StoredEvent | undefined | false>(
        () => this.engine.append(this.id, key, data, held && request !== undefined ? { running: request } : undefined),
        (error) => {
          if (isLeaseLost(error)) return false;
          // Not kept for resumption, but the client still gets it on the stream it holds.
          this.#onError(error);
          return undefined;
        },
      ),
    );
    return andThen(appended, (event) => {
      const copy = this.#resumed.get(key);
      if (event === false) {
        if (!last || request === undefined) return;
        // The client gets what the log holds (the claimer's answer), never a second one.
        this.#onError(new Error(`request ${request} was taken over by another process: its own reply is dropped`));
        stream.write(orphanedLine(request));
      } else if (event === undefined) stream.write(data);
      else if (data === "") stream.prime(event.id);
      else {
        stream.write(data, event.id);
        copy?.write(data, event.id);
      }
      if (last) this.finished(key, request, stream);
    });
  }

  finished(key: string, request: string | undefined, stream: EventStream): void {
    stream.close();
    this.#open.delete(key);
    this.#leases.delete(key);
    const copy = this.#resumed.get(key);
    if (copy) {
      this.#resumed.delete(key);
      copy.close();
    }
    if (request !== undefined) this.#quietly(() => this.engine.finished(this.id, request));
  }

  /** A line its connection said: on the POST stream it belongs to while that is open, else on the GET stream. */
  deliver(line: string, delivery: Delivery): void {
    const reply = delivery.tag as PostReply | undefined;
    if (reply?.deliver(line, delivery)) return;
    this.unrelated(line);
  }

  /** A message that belongs to no open request: kept as an event of the GET stream, written by whoever holds it. */
  unrelated(line: string): void {
    this.#quietly(() => andThen(this.engine.append(this.id, "get", line), () => undefined));
  }

  // ── Streams held here ──

  /** A fresh GET stream: the session's messages that belong to no request go there from now on; the take's token. */
  holdGet(stream: EventStream): string {
    return this.#held.holdGet(stream);
  }

  /**
   * Resume stream `key` into `into` after `events` (what it missed), then live until its reply is complete; the
   * take's token.
   */
  resume(key: string, events: readonly StoredEvent[], into: EventStream): string {
    const token = this.#held.take(key);
    if (!this.#owned.has(key)) {
      this.#held.resume(key, events, into);
      return token;
    }
    // This process writes it: the copy gets what the original gets, until its reply is complete.
    for (const event of events) if (event.data !== "") into.write(event.data, event.id);
    if (!this.#open.has(key)) into.close();
    else {
      this.#resumed.get(key)?.close();
      this.#resumed.set(key, into);
    }
    return token;
  }

  /** What the session kept that the GET stream held here never heard, written on it now (see `HeldStreams`). */
  catchUp(): MaybePromise<void> {
    return this.#held.catchUp();
  }

  #heard(signal: SessionSignal, onEnded: () => void): void {
    switch (signal.type) {
      case "event":
        if (!this.#owned.has(signal.event.stream)) this.#held.heard(signal.event);
        return;
      case "client":
        // An answer to this process's question is kept for it by the engine: the signal only wakes it to take it.
        if (signal.to === this.engine.node) this.wake();
        // Any other answer or cancellation POSTed to another process: only the asker (or runner) acts on it.
        else if (signal.from !== this.engine.node)
          void attempt(() => this.connection.receive(signal.line), this.#onError);
        return;
      case "taken":
        // Taken by another process: this process's copy of its own stream closes too.
        if (this.#held.taken(signal.stream, signal.holder)) {
          this.#resumed.get(signal.stream)?.close();
          this.#resumed.delete(signal.stream);
        }
        return;
      case "ended":
        onEnded();
        return;
    }
  }

  #quietly(step: () => MaybePromise<void>): void {
    const done = attempt(step, this.#onError);
    if (done instanceof Promise) done.catch(this.#onError);
  }

  /**
   * Drop what this process holds of the session: `ended`, its streams end as at the session's end (it ended, or the
   * transport is closing; the engine ends the session itself, and its store with it), else this process lets it go.
   */
  close(ended: boolean): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#unfollow) this.#quietly(this.#unfollow);
    if (ended) this.connection.endSubscriptions();
    this.connection.close(new Error(ended ? "session ended" : "session released by this process"));
    this.#held.close();
    for (const stream of this.#resumed.values()) stream.close();
    this.#resumed.clear();
  }
}
