import type { StoredEvent } from "./event-log.js";
import {
  keptCapabilities,
  keptClientInfo,
  SESSION_BOUNDS,
  subscriptionUriRefusal,
  tooManySubscriptions,
  utf8Length,
} from "./session-bounds.js";
import type { InitializedSession, SessionChange, SessionLimits, SessionRecord } from "./session-store.js";

// An event id is the text of a positive integer, exactly as this table writes it.
const EVENT_ID = /^[1-9][0-9]{0,15}$/;
// Expired sessions are ended (and `ended` signalled) at most this late; a session read after expiry ends at once.
const SWEEP_FLOOR_MS = 1000;
// setTimeout's longest delay: a longer one would fire at once.
const MAX_TIMER_MS = 2 ** 31 - 1;

/** One session as kept: its record (rebuilt only when read after a change), expiry, and its last events. */
interface Kept {
  record: SessionRecord | undefined;
  readonly base: SessionRecord;
  initialized: boolean;
  logLevel: SessionRecord["logLevel"];
  readonly subscriptions: Set<string>;
  // The UTF-8 bytes of its subscriptions' URIs together.
  subscriptionBytes: number;
  readonly idleMs: number;
  expiresAt: number;
  // A ring of the last events: event number n sits at n % capacity while n > appended - capacity.
  readonly events: (StoredEvent | undefined)[];
  appended: number;
}

/**
 * The sessions of one process (the memory engine's `SessionStore` and `EventLog`): bounded in all and per caller,
 * expired when idle (by the next read of one, or by a sweep at most a second late), each with its last events.
 */
export class SessionTable {
  readonly #sessions = new Map<string, Kept>();
  // Live sessions per caller, given back when one ends.
  readonly #callers = new Map<string, number>();
  // uri → the sessions subscribed to it: `subscribers` reads it without a scan.
  readonly #byUri = new Map<string, Set<string>>();
  readonly #now: () => number;
  readonly #capacity: number;
  readonly #ended: (id: string) => void;
  #sweeper: ReturnType<typeof setTimeout> | undefined;
  #shortestIdleMs = SWEEP_FLOOR_MS;
  #closed = false;

  constructor(now: () => number, eventsPerSession: number, ended: (id: string) => void) {
    this.#now = now;
    this.#capacity = eventsPerSession;
    this.#ended = ended;
  }

  get size(): number {
    return this.#sessions.size;
  }

  create(record: SessionRecord, limits: SessionLimits): "created" | "full" | "full-for-caller" {
    if (this.#sessions.has(record.id) && this.#live(record.id)) {
      throw new Error(`A session with id ${JSON.stringify(record.id)} already exists`);
    }
    // Expired sessions give their places back before counting.
    if (this.#sessions.size >= limits.max || this.#heldBy(record.caller) >= limits.perCaller) this.sweep();
    if (this.#sessions.size >= limits.max) return "full";
    if (record.caller !== undefined && this.#heldBy(record.caller) >= limits.perCaller) return "full-for-caller";
    const kept: Kept = {
      record: undefined,
      base: keptOf(record),
      initialized: record.initialized,
      logLevel: record.logLevel,
      subscriptions: new Set(),
      subscriptionBytes: 0,
      idleMs: limits.idleMs,
      expiresAt: this.#now() + limits.idleMs,
      events: [],
      appended: 0,
    };
    this.#sessions.set(record.id, kept);
    if (record.caller !== undefined) this.#callers.set(record.caller, this.#heldBy(record.caller) + 1);
    this.#shortestIdleMs = Math.min(this.#shortestIdleMs, limits.idleMs);
    if (this.#sweeper === undefined) this.#schedule(limits.idleMs);
    return "created";
  }

  load(id: string): SessionRecord | undefined {
    const kept = this.#live(id);
    if (!kept) return undefined;
    kept.expiresAt = this.#now() + kept.idleMs;
    kept.record ??= { ...kept.base, initialized: kept.initialized, logLevel: kept.logLevel };
    return kept.record;
  }

  /** Whether the session is live (its idle time not restarted). */
  has(id: string): boolean {
    return this.#live(id) !== undefined;
  }

  change(id: string, change: SessionChange): void {
    if (change.kind === "subscribe") {
      const refused = subscriptionUriRefusal(change.uri);
      if (refused) throw refused;
    }
    const kept = this.#live(id);
    if (!kept) return;
    switch (change.kind) {
      case "initialized":
        kept.initialized = true;
        break;
      case "logLevel":
        kept.logLevel = change.level;
        break;
      case "subscribe":
        this.#subscribe(id, kept, change.uri);
        return;
      case "unsubscribe":
        if (!kept.subscriptions.delete(change.uri)) return;
        kept.subscriptionBytes -= utf8Length(change.uri);
        this.#unindex(id, change.uri);
        return;
    }
    kept.record = undefined;
  }

  /** End a session: its events, subscriptions and place go; `ended` is told. False when there was none. */
  delete(id: string): boolean {
    const kept = this.#sessions.get(id);
    if (!kept) return false;
    this.#sessions.delete(id);
    const { caller } = kept.base;
    if (caller !== undefined) {
      const held = this.#heldBy(caller) - 1;
      if (held > 0) this.#callers.set(caller, held);
      else this.#callers.delete(caller);
    }
    for (const uri of kept.subscriptions) this.#unindex(id, uri);
    this.#ended(id);
    return true;
  }

  subscribers(uri: string): string[] {
    const ids = this.#byUri.get(uri);
    if (!ids) return [];
    const live: string[] = [];
    for (const id of [...ids]) if (this.#live(id)) live.push(id);
    return live;
  }

  /** The live sessions initialized (those subscribed to `uri` when given), with their principals; none touched. */
  initialized(uri?: string): InitializedSession[] {
    const ids = uri === undefined ? this.#sessions.keys() : (this.#byUri.get(uri) ?? []);
    const found: InitializedSession[] = [];
    // A copy: an expired session ends as it is met.
    for (const id of [...ids]) {
      const kept = this.#live(id);
      if (kept?.initialized) found.push({ id, principal: kept.base.principal });
    }
    return found;
  }

  ids(): string[] {
    this.sweep();
    return [...this.#sessions.keys()];
  }

  /** Keep an event in its session; undefined (nothing kept) when the session is gone. */
  append(id: string, stream: string, data: string): StoredEvent | undefined {
    const kept = this.#live(id);
    if (!kept) return undefined;
    kept.appended++;
    const event: StoredEvent = { id: String(kept.appended), stream, data };
    kept.events[kept.appended % this.#capacity] = event;
    return event;
  }

  replay(id: string, lastEventId: string): { stream: string; events: StoredEvent[] } | undefined {
    const kept = this.#live(id);
    if (!kept || !EVENT_ID.test(lastEventId)) return undefined;
    const last = Number(lastEventId);
    const oldest = Math.max(1, kept.appended - this.#capacity + 1);
    if (last < oldest || last > kept.appended) return undefined;
    const { stream } = kept.events[last % this.#capacity] as StoredEvent;
    const events: StoredEvent[] = [];
    for (let n = last + 1; n <= kept.appended; n++) {
      const event = kept.events[n % this.#capacity] as StoredEvent;
      if (event.stream === stream) events.push(event);
    }
    return { stream, events };
  }

  /** End every expired session; the earliest expiry of those left (undefined when none is left). */
  sweep(): number | undefined {
    const now = this.#now();
    let earliest: number | undefined;
    for (const [id, kept] of this.#sessions) {
      if (now > kept.expiresAt) this.delete(id);
      else if (earliest === undefined || kept.expiresAt < earliest) earliest = kept.expiresAt;
    }
    return earliest;
  }

  /** Forget everything without telling anyone, and sweep no more (the engine closed). */
  clear(): void {
    if (this.#sweeper !== undefined) clearTimeout(this.#sweeper);
    this.#sweeper = undefined;
    this.#closed = true;
    this.#sessions.clear();
    this.#callers.clear();
    this.#byUri.clear();
  }

  #schedule(delayMs: number): void {
    this.#sweeper = setTimeout(
      () => {
        this.#sweeper = undefined;
        const earliest = this.sweep();
        if (earliest === undefined || this.#closed) return;
        this.#schedule(Math.max(earliest - this.#now() + 1, Math.min(SWEEP_FLOOR_MS, this.#shortestIdleMs)));
      },
      Math.min(delayMs + 1, MAX_TIMER_MS),
    );
    // The sweep is housekeeping: it must not keep a finished process alive.
    (this.#sweeper as { unref?: () => void }).unref?.();
  }

  /** The session if it is live; an expired one ends here. */
  #live(id: string): Kept | undefined {
    const kept = this.#sessions.get(id);
    if (kept && this.#now() > kept.expiresAt) {
      this.delete(id);
      return undefined;
    }
    return kept;
  }

  #heldBy(caller: string | undefined): number {
    return caller === undefined ? 0 : (this.#callers.get(caller) ?? 0);
  }

  #subscribe(id: string, kept: Kept, uri: string): void {
    if (kept.subscriptions.has(uri)) return;
    // Kept for the session's life: bounded in count and bytes, so a client cannot grow the engine by subscribing.
    const bytes = utf8Length(uri);
    if (
      kept.subscriptions.size >= SESSION_BOUNDS.subscriptions ||
      kept.subscriptionBytes + bytes > SESSION_BOUNDS.subscriptionBytes
    ) {
      throw tooManySubscriptions();
    }
    kept.subscriptions.add(uri);
    kept.subscriptionBytes += bytes;
    let ids = this.#byUri.get(uri);
    if (!ids) {
      ids = new Set();
      this.#byUri.set(uri, ids);
    }
    ids.add(id);
  }

  #unindex(id: string, uri: string): void {
    const ids = this.#byUri.get(uri);
    ids?.delete(id);
    if (ids?.size === 0) this.#byUri.delete(uri);
  }
}

/**
 * What of a record is kept: only what SessionRecord names (a principal by subject, scopes and client id, never a token
 * or other claims a caller passed along; the client's declarations bounded), copied so the caller's later changes to
 * its objects change nothing here.
 */
function keptOf(record: SessionRecord): SessionRecord {
  const { principal } = record;
  return {
    id: record.id,
    principal:
      principal === undefined
        ? undefined
        : {
            subject: principal.subject,
            scopes: [...principal.scopes],
            ...(principal.clientId === undefined ? {} : { clientId: principal.clientId }),
          },
    caller: record.caller,
    version: record.version,
    clientInfo: keptClientInfo(record.clientInfo),
    clientCapabilities: keptCapabilities(record.clientCapabilities),
    initialized: record.initialized,
    logLevel: record.logLevel,
  };
}
