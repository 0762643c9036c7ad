import type { MaybePromise } from "@toolsmith/core";
import {
  type AuthInfo,
  type Connection,
  type Engine,
  featuresOf,
  type ProtocolVersion,
  type SessionRecord,
  type SessionSignal,
  type StoredEvent,
  type StoredPrincipal,
  type Unfollow,
} from "@toolsmith/core";
import { isLeaseLost } from "@toolsmith/core/internal";
import type { EventStream } from "./event-stream.js";
import { JSON_HEADERS } from "./exchange.js";
import { andThen, attempt } from "./maybe.js";
import { orphanedLine } from "./orphaned.js";
import { handshakeStatus } from "./refusals.js";
import type { EventLog, ReplyOptions } from "./reply.js";

/** True for a record opened by `auth`'s caller (a session opened unauthenticated: an unauthenticated caller). */
export function ownedBy(record: SessionRecord, auth: AuthInfo | undefined): boolean {
  const subject = record.principal?.subject;
  if (auth === undefined) return subject === undefined;
  return typeof auth.subject === "string" && auth.subject.trim() !== "" && auth.subject === subject;
}

// A JSON-RPC response ends a POST's stream: no `method` at its top level (a request or notification has one).
function isResponse(data: string): boolean {
  if (data === "") return false;
  try {
    const message = JSON.parse(data) as Record<string, unknown>;
    return typeof message === "object" && message !== null && !("method" in message);
  } catch {
    return false;
  }
}

// POST stream keys are `<node>-<n>`, n counted per process: a session let go here and made again never reuses one.
let streams = 0;

// A stream this process holds of another writer's events: written from the session's signals.
interface Held {
  readonly stream: EventStream;
  // Events heard while its replay was still being read (a shared engine answers later); undefined once live.
  pending: StoredEvent[] | undefined;
  // A resumed POST stream closes after its response; the GET stream never does.
  readonly closesOnResponse: boolean;
  // The id of the last event written on it: where a catch-up replays from.
  last?: string;
}

/**
 * One handshake-era session as this process serves it: its live connection (made here, from the engine's record
 * when another process opened it), the streams held here, and what it follows of the session's channel.
 */
export class HttpSession implements EventLog {
  readonly id: string;
  readonly engine: Engine;
  readonly version: ProtocolVersion;
  /** Set once made (the connection's `send` needs the session first). */
  connection!: Connection;
  /** What every POST's reply in this session is made with: made once, not per POST. */
  readonly replies: ReplyOptions;
  readonly priming: boolean;
  /** Its stored principal (who may hear what, for the changes told to it). */
  readonly principal: StoredPrincipal | undefined;
  /** Known initialized (it never goes back): list changes are told to it without loading its record. */
  initialized: boolean;
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
  readonly #held = new Map<string, Held>();
  // This process's latest take of each stream it holds here, and whether its `taken` signal came back yet: a take
  // heard before our own predates it (two processes took the stream at once; the later one keeps it).
  readonly #takes = new Map<string, { token: string; confirmed: boolean }>();
  #taking = 0;
  #unfollow: Unfollow | undefined;
  #closed = false;

  constructor(record: SessionRecord, engine: Engine, onError: (error: unknown) => void) {
    const { id, version } = record;
    this.principal = record.principal;
    this.initialized = record.initialized;
    this.id = id;
    this.engine = engine;
    this.version = version;
    this.priming = featuresOf(version).ssePriming;
    this.#onError = onError;
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
    const held = this.#held.get("get");
    return held && !held.stream.closed ? held.stream : undefined;
  }

  /** True while something of the session is held open here (a stream, a request being served). */
  get busy(): boolean {
    if (this.#open.size > 0 || this.connection.pending > 0) return true;
    for (const held of this.#held.values()) if (!held.stream.closed) return true;
    return false;
  }

  // ── EventLog: the POST streams this process writes ──

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

  write(key: string, data: string, stream: EventStream, last: boolean, request: string | undefined): void {
    // A request's events are kept only while its lease is this process's (once the lease is taken; none taken, none
    // to lose): one another process claimed (this one stalled past its lease) already has its answer there.
    const lease = request === undefined ? false : (this.#leases.get(key) ?? false);
    const appended = andThen(lease, (held) =>
      attempt<StoredEvent | undefined | false>(
        () => this.engine.append(this.id, key, data, held ? { running: request } : undefined),
        (error) => {
          if (isLeaseLost(error)) return false;
          // Not kept for resumption, but the client still gets it on the stream it holds.
          this.#onError(error);
          return undefined;
        },
      ),
    );
    andThen(appended, (event) => {
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

  /** A message that belongs to no open request: kept as an event of the GET stream, written by whoever holds it. */
  unrelated(line: string): void {
    this.#quietly(() => andThen(this.engine.append(this.id, "get", line), () => undefined));
  }

  // ── Streams held here ──

  /** A fresh GET stream: the session's messages that belong to no request go there from now on; the take's token. */
  holdGet(stream: EventStream): string {
    this.#hold("get", { stream, pending: undefined, closesOnResponse: false });
    return this.#take("get");
  }

  // The token of this process's take of stream `key`, said as the `holder` of its `taken` signal.
  #take(key: string): string {
    const token = `${this.engine.node}#${++this.#taking}`;
    this.#takes.set(key, { token, confirmed: false });
    return token;
  }

  /**
   * Resume stream `key` into `into` after `events` (what it missed), then live until its reply is complete; the
   * take's token.
   */
  resume(key: string, events: readonly StoredEvent[], into: EventStream): string {
    const token = this.#take(key);
    const write = (event: StoredEvent) => {
      if (event.data !== "") into.write(event.data, event.id);
    };
    if (this.#owned.has(key)) {
      // This process writes it: the copy gets what the original gets, until its reply is complete.
      for (const event of events) write(event);
      if (!this.#open.has(key)) into.close();
      else {
        this.#resumed.get(key)?.close();
        this.#resumed.set(key, into);
      }
      return token;
    }
    const closesOnResponse = key !== "get";
    if (closesOnResponse && events.some((event) => isResponse(event.data))) {
      for (const event of events) write(event);
      into.close();
      return token;
    }
    const held: Held = { stream: into, pending: [], closesOnResponse };
    this.#hold(key, held);
    for (const event of events) write(event);
    held.last = events.at(-1)?.id;
    const seen = new Set(events.map((event) => event.id));
    const pending = held.pending ?? [];
    held.pending = undefined;
    for (const event of pending) if (!seen.has(event.id)) this.#writeHeld(key, held, event);
    return token;
  }

  /** Stream `key` was taken by `holder`: by another process after this one's own take, this process's copy closes. */
  #taken(key: string, holder: string): void {
    const take = this.#takes.get(key);
    if (take?.token === holder) {
      take.confirmed = true;
      return;
    }
    // An earlier take of this process's own (that copy is already replaced), or another's made before ours.
    if (holder.startsWith(`${this.engine.node}#`) || (take && !take.confirmed)) return;
    this.#takes.delete(key);
    const held = this.#held.get(key);
    if (held) {
      this.#held.delete(key);
      held.stream.close();
    }
    this.#resumed.get(key)?.close();
    this.#resumed.delete(key);
  }

  #hold(key: string, held: Held): void {
    this.#held.get(key)?.stream.close();
    this.#held.set(key, held);
  }

  #writeHeld(key: string, held: Held, event: StoredEvent): void {
    if (held.pending) {
      held.pending.push(event);
      return;
    }
    held.last = event.id;
    if (event.data === "") held.stream.prime(event.id);
    else held.stream.write(event.data, event.id);
    if (held.closesOnResponse && isResponse(event.data)) {
      held.stream.close();
      if (this.#held.get(key) === held) this.#held.delete(key);
    }
  }

  /**
   * Write on the GET stream held here what the session kept after its last event but this process never heard (a
   * signal is heard at most once: one published while the bus reconnected is lost).
   */
  catchUp(): MaybePromise<void> {
    const held = this.#held.get("get");
    const from = held?.last;
    if (!held || from === undefined || held.pending || held.stream.closed) return;
    return andThen(this.engine.replay(this.id, from), (replayed) => {
      if (!replayed || this.#held.get("get") !== held || held.stream.closed) return;
      // Events heard live meanwhile were written already: only what comes after the last of them.
      const after = held.last === from ? 0 : replayed.events.findIndex((event) => event.id === held.last) + 1;
      if (after === 0 && held.last !== from) return;
      for (const event of replayed.events.slice(after)) this.#writeHeld("get", held, event);
    });
  }

  #heard(signal: SessionSignal, onEnded: () => void): void {
    switch (signal.type) {
      case "event": {
        const { event } = signal;
        if (this.#owned.has(event.stream)) return;
        const held = this.#held.get(event.stream);
        if (!held) return;
        if (held.stream.closed) this.#held.delete(event.stream);
        else this.#writeHeld(event.stream, held, event);
        return;
      }
      case "client":
        // An answer to this process's question is kept for it by the engine: the signal only wakes it to take it.
        if (signal.to === this.engine.node) this.wake();
        // Any other answer or cancellation POSTed to another process: only the asker (or runner) acts on it.
        else if (signal.from !== this.engine.node)
          void attempt(() => this.connection.receive(signal.line), this.#onError);
        return;
      case "taken":
        this.#taken(signal.stream, signal.holder);
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

  /** Drop what this process holds of the session (it ended, or this process lets it go). */
  close(ended: boolean): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#unfollow) this.#quietly(this.#unfollow);
    if (ended) this.connection.endSubscriptions();
    this.connection.close(new Error(ended ? "session ended" : "session released by this process"));
    for (const held of this.#held.values()) held.stream.close();
    this.#held.clear();
    for (const stream of this.#resumed.values()) stream.close();
    this.#resumed.clear();
    this.#takes.clear();
  }
}
