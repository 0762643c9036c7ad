import type { MaybePromise } from "@toolsmith/core";
import type { EngineLifecycle, EventLog, StoredEvent } from "@toolsmith/core/engine";
import { andThen } from "@toolsmith/core/internal";
import type { EventStream } from "../exchange/event-stream.js";

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
 * The streams of one session this process holds but does not write: its GET stream and other processes' POST streams
 * resumed here, written from the session's `event` signals; and this process's takes of them (a stream is held by one
 * process at a time: the latest to take it).
 */
export class HeldStreams {
  readonly #engine: EngineLifecycle & EventLog;
  readonly #session: string;
  readonly #held = new Map<string, Held>();
  // This process's latest take of each stream it holds here, and whether its `taken` signal came back yet: a take
  // heard before our own predates it (two processes took the stream at once; the later one keeps it).
  readonly #takes = new Map<string, { token: string; confirmed: boolean }>();
  #taking = 0;

  constructor(engine: EngineLifecycle & EventLog, session: string) {
    this.#engine = engine;
    this.#session = session;
  }

  /** The GET stream held here, if open. */
  get get(): EventStream | undefined {
    const held = this.#held.get("get");
    return held && !held.stream.closed ? held.stream : undefined;
  }

  /** True while any of them is open. */
  get open(): boolean {
    for (const held of this.#held.values()) if (!held.stream.closed) return true;
    return false;
  }

  /** A fresh GET stream: the session's messages that belong to no request go there from now on; the take's token. */
  holdGet(stream: EventStream): string {
    this.#hold("get", { stream, pending: undefined, closesOnResponse: false });
    return this.take("get");
  }

  /** The token of this process's take of stream `key`, said as the `holder` of its `taken` signal. */
  take(key: string): string {
    const token = `${this.#engine.node}#${++this.#taking}`;
    this.#takes.set(key, { token, confirmed: false });
    return token;
  }

  /** Another writer's stream `key` resumed into `into` after `events` (what it missed), then live until its reply. */
  resume(key: string, events: readonly StoredEvent[], into: EventStream): void {
    const write = (event: StoredEvent) => {
      if (event.data !== "") into.write(event.data, event.id);
    };
    const closesOnResponse = key !== "get";
    if (closesOnResponse && events.some((event) => isResponse(event.data))) {
      for (const event of events) write(event);
      into.close();
      return;
    }
    const held: Held = { stream: into, pending: [], closesOnResponse };
    this.#hold(key, held);
    for (const event of events) write(event);
    held.last = events.at(-1)?.id;
    const seen = new Set(events.map((event) => event.id));
    const pending = held.pending ?? [];
    held.pending = undefined;
    for (const event of pending) if (!seen.has(event.id)) this.#write(key, held, event);
  }

  /**
   * Stream `key` was taken by `holder`: by another process after this one's own take, this process's copy closes
   * (true: this process let go of it).
   */
  taken(key: string, holder: string): boolean {
    const take = this.#takes.get(key);
    if (take?.token === holder) {
      take.confirmed = true;
      return false;
    }
    // An earlier take of this process's own (that copy is already replaced), or another's made before ours.
    if (holder.startsWith(`${this.#engine.node}#`) || (take && !take.confirmed)) return false;
    this.#takes.delete(key);
    const held = this.#held.get(key);
    if (held) {
      this.#held.delete(key);
      held.stream.close();
    }
    return true;
  }

  /** An event the session's channel carried: written on its stream if held here. */
  heard(event: StoredEvent): void {
    const held = this.#held.get(event.stream);
    if (!held) return;
    if (held.stream.closed) this.#held.delete(event.stream);
    else this.#write(event.stream, held, event);
  }

  #hold(key: string, held: Held): void {
    this.#held.get(key)?.stream.close();
    this.#held.set(key, held);
  }

  #write(key: string, held: Held, event: StoredEvent): void {
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
    return andThen(this.#engine.replay(this.#session, from), (replayed) => {
      if (!replayed || this.#held.get("get") !== held || held.stream.closed) return;
      // Events heard live meanwhile were written already: only what comes after the last of them.
      const after = held.last === from ? 0 : replayed.events.findIndex((event) => event.id === held.last) + 1;
      if (after === 0 && held.last !== from) return;
      for (const event of replayed.events.slice(after)) this.#write("get", held, event);
    });
  }

  /** Close every one, for good. */
  close(): void {
    for (const held of this.#held.values()) held.stream.close();
    this.#held.clear();
    this.#takes.clear();
  }
}
