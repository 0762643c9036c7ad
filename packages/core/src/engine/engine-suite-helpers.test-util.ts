import type { TestContext } from "vitest";
import type { Engine, SessionLimits, SessionRecord, SessionSignal, StoredEvent } from "./engine.js";

/** What `make` gives: fresh engines of one server (each call its own empty store), and how to end them. */
export interface MadeEngines {
  /** One engine per process; the suite starts each. Their store is theirs alone (a fresh namespace per call). */
  readonly engines: Engine[];
  /** Ends the engines (some may already be closed) and anything they needed. */
  cleanup(): Promise<void>;
}

/** Generous: what a slow shared machine may take to carry a signal between processes. */
export const DEADLINE_MS = 10_000;

/** Limits no test reaches. */
export const ROOMY: SessionLimits = { max: 1000, perCaller: 1000, idleMs: 60_000 };

/** Names and data a hostile or careless caller may use, each of which must travel as it is. */
export const ODD = [
  ":",
  "{",
  "}*",
  "a:b{c}*[d]?",
  "ts:{suite}:session:x",
  "line\nbreak\r\n",
  "ünïcødé 🙂 中文",
  "%2F..%00",
  " ",
  "x".repeat(10_240),
];

/** A session record with a fresh id (or `id`), every field set. */
export function recordOf(overrides: Partial<SessionRecord> = {}): SessionRecord {
  return {
    id: `s-${crypto.randomUUID()}`,
    principal: { subject: "user-1", scopes: ["read", "write"], clientId: "client-1" },
    caller: "subject user-1",
    version: "2025-06-18",
    clientInfo: { name: "suite-client", version: "1.2.3" },
    clientCapabilities: { roots: { listChanged: true }, elicitation: {} },
    initialized: false,
    logLevel: undefined,
    ...overrides,
  };
}

/** What a listener heard, and a way to wait (with a named deadline) until it heard enough. */
export class Heard<T> {
  readonly items: T[] = [];
  readonly #waiters = new Set<() => void>();

  readonly push = (item: T): void => {
    this.items.push(item);
    for (const waiter of [...this.#waiters]) waiter();
  };

  until(done: (items: T[]) => boolean, what: string, ms = DEADLINE_MS): Promise<T[]> {
    if (done(this.items)) return Promise.resolve(this.items);
    return new Promise((resolve, reject) => {
      const check = () => {
        if (!done(this.items)) return;
        clearTimeout(timer);
        this.#waiters.delete(check);
        resolve(this.items);
      };
      const timer = setTimeout(() => {
        this.#waiters.delete(check);
        reject(new Error(`waited ${ms} ms for ${what}; heard ${JSON.stringify(this.items).slice(0, 500)}`));
      }, ms);
      this.#waiters.add(check);
    });
  }
}

/** Keep asking `check` (every `everyMs`) until it says yes; fails naming `what` past the deadline. */
export async function eventually(check: () => Promise<boolean>, what: string, everyMs = 50): Promise<void> {
  const deadline = Date.now() + DEADLINE_MS;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`waited ${DEADLINE_MS} ms for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/**
 * Signal a marker on a session and wait until `heard` (and each of `others`) heard it: whatever was signalled before
 * it has then arrived. The marker's stream name is returned.
 */
export async function flush(
  engine: Engine,
  session: string,
  heard: Heard<SessionSignal>,
  ...others: Heard<SessionSignal>[]
): Promise<string> {
  const stream = `flush-${crypto.randomUUID()}`;
  await engine.signal(session, { type: "taken", stream, holder: engine.node });
  for (const follower of [heard, ...others]) {
    await follower.until(
      (items) => items.some((s) => s.type === "taken" && s.stream === stream),
      `the marker ${stream}`,
    );
  }
  return stream;
}

/** The events a follower heard. */
export function eventsIn(signals: readonly SessionSignal[]): StoredEvent[] {
  return signals.flatMap((s) => (s.type === "event" ? [s.event] : []));
}

/** Opens engines for one test and ends them after it. */
export interface Opener {
  /** Fresh engines, every one started (or only the first: the others start later, with `server()`). */
  open(options?: { start?: "all" | "first" }): Promise<Engine[]>;
  /** Fresh engines, at least two (the test is skipped when `make` gives one). */
  two(ctx: TestContext, options?: { start?: "all" | "first" }): Promise<Engine[]>;
  /** The server the last opened engines belong to (what their `start` is given). */
  server(): { readonly name: string };
}
