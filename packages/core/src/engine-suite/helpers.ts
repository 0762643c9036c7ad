import { afterEach, expect, type TestContext } from "vitest";
import type {
  Engine,
  EngineLifecycle,
  SessionChannel,
  SessionLimits,
  SessionRecord,
  SessionSignal,
  StoredEvent,
  TaskRecord,
} from "../engine/engine.js";
import { isLeaseLost } from "../engine/engine.js";

/**
 * What `make` gives: fresh engines of one server (each call its own empty store), and how to end them. `E` is the
 * roles a suite needs of them (`Engine`: every role).
 */
export interface MadeEngines<E extends EngineLifecycle = Engine> {
  /** One engine per process; the suite starts each. Their store is theirs alone (a fresh namespace per call). */
  readonly engines: E[];
  /** Ends the engines (some may already be closed) and anything they needed. */
  cleanup(): Promise<void>;
}

/** Gives fresh engines of one server, once per test: what every suite takes. */
export type MakeEngines<E extends EngineLifecycle = Engine> = () => Promise<MadeEngines<E>>;

/** Generous: what a slow shared machine may take to carry a signal between processes. */
export const DEADLINE_MS = 10_000;

/**
 * Each suite's test timeout, above every wait a test makes (vitest's default, 5 s, is below `DEADLINE_MS`): a test
 * that fails by waiting fails naming what it waited for. A test that waits longer on purpose sets its own.
 */
export const TEST_TIMEOUT_MS = 120_000;

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

/** A working task with a fresh id (or `id`), created now, kept an hour. */
export function taskOf(overrides: Partial<TaskRecord> = {}): TaskRecord {
  const now = Date.now();
  return {
    id: crypto.randomUUID(),
    owner: "user-1",
    node: "node-1",
    tool: "report",
    status: "working",
    createdAt: now,
    lastUpdatedAt: now,
    ttlMs: 3_600_000,
    pollIntervalMs: 1000,
    inputRequests: {},
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
  engine: EngineLifecycle & SessionChannel,
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

/** Expect `write` to be refused as a lost lease. */
export async function expectLeaseLost(write: () => unknown): Promise<void> {
  let thrown: unknown;
  try {
    await write();
  } catch (error) {
    thrown = error;
  }
  expect(isLeaseLost(thrown), `refused as a lost lease, not ${String(thrown)}`).toBe(true);
}

/** The events a follower heard. */
export function eventsIn(signals: readonly SessionSignal[]): StoredEvent[] {
  return signals.flatMap((s) => (s.type === "event" ? [s.event] : []));
}

/** Opens engines for one test and ends them after it. */
export interface Opener<E extends EngineLifecycle = Engine> {
  /** Fresh engines, every one started (or only the first: the others start later, with `server()`). */
  open(options?: { start?: "all" | "first" }): Promise<E[]>;
  /** Fresh engines, at least two (the test is skipped when `make` gives one). */
  two(ctx: TestContext, options?: { start?: "all" | "first" }): Promise<E[]>;
  /** The server the last opened engines belong to (what their `start` is given). */
  server(): { readonly name: string };
}

/** The opener of the tests of the `describe` it is called in: what it opens is ended after each test. */
export function openerOf<E extends EngineLifecycle>(make: MakeEngines<E>): Opener<E> {
  let made: MadeEngines<E> | undefined;
  let count: number | undefined;
  let server = { name: "" };
  afterEach(async () => {
    const current = made;
    made = undefined;
    await current?.cleanup();
  });
  const opener: Opener<E> = {
    async open(options) {
      made = await make();
      count = made.engines.length;
      server = { name: `engine-suite-${crypto.randomUUID()}` };
      const starting = options?.start === "first" ? made.engines.slice(0, 1) : made.engines;
      for (const engine of starting) await engine.start(server);
      return made.engines;
    },
    server: () => server,
    async two(ctx, options) {
      if (count !== undefined && count < 2) ctx.skip();
      const engines = await opener.open(options);
      if (engines.length < 2) ctx.skip();
      return engines;
    },
  };
  return opener;
}

/**
 * `engine`, counting the task follows made through it that are not yet let go: a test sees each waiting tasks/result
 * (2025-11-25) let go of its follow when it is cancelled, its connection closes or its session ends.
 */
export function countFollows(engine: Engine): { engine: Engine; live: () => number } {
  let live = 0;
  const followTask: Engine["followTask"] = async (id, listener) => {
    const unfollow = await engine.followTask(id, listener);
    live++;
    let done = false;
    return async () => {
      if (!done) live--;
      done = true;
      await unfollow();
    };
  };
  const counted = new Proxy(engine, {
    get: (target, key) => {
      if (key === "followTask") return followTask;
      const value = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { engine: counted, live: () => live };
}

/** Until `live()` is `n`, a turn of the event loop apart (the test's own timeout bounds the wait). */
export async function untilLive(live: () => number, n: number): Promise<void> {
  while (live() !== n) await new Promise((resolve) => setTimeout(resolve, 0));
}
