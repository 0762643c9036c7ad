import type { SessionStore } from "@toolsmith/core/engine";
import { andThen, attempt } from "@toolsmith/core/internal";
import type { HttpSession } from "./http-session.js";

/**
 * The sessions this process serves now, each with its live connection: bounded (the least recently used idle one
 * goes first), dropped when the session ends anywhere or goes unused here. Sessions themselves are the engine's.
 */
export class LiveSessions {
  readonly #sessions = new Map<string, HttpSession>();
  readonly #max: number;
  readonly #idleMs: number;
  readonly #engine: SessionStore;
  readonly #onError: (error: unknown) => void;
  #sweeper: ReturnType<typeof setInterval> | undefined;
  #closed = false;
  #take: () => void = () => {};

  /** Take the client lines the engine kept for this process (what `takeWith` set: the fan-out routes them). */
  readonly wake = (): void => this.#take();

  /** What `wake` does. */
  takeWith(take: () => void): void {
    this.#take = take;
  }

  constructor(max: number, idleMs: number, engine: SessionStore, onError: (error: unknown) => void) {
    this.#max = max;
    this.#idleMs = idleMs;
    this.#engine = engine;
    this.#onError = onError;
  }

  get size(): number {
    return this.#sessions.size;
  }

  get(id: string): HttpSession | undefined {
    const session = this.#sessions.get(id);
    if (session) session.lastSeen = Date.now();
    return session;
  }

  /** The live session, without counting it as used. */
  peek(id: string): HttpSession | undefined {
    return this.#sessions.get(id);
  }

  /** Every live session's id. */
  ids(): string[] {
    return [...this.#sessions.keys()];
  }

  /** Keep `session` here; false (and the session closed) once `closeAll` has run: nothing outlives it. */
  add(session: HttpSession): boolean {
    if (this.#closed) {
      session.close(true);
      return false;
    }
    if (this.#sessions.size >= this.#max) this.#evict();
    this.#sessions.set(session.id, session);
    if (!this.#sweeper) {
      // Half the idle time: a session whose GET stream is open here is touched before the engine expires it.
      this.#sweeper = setInterval(() => this.#sweep(), Math.max(1, Math.min(this.#idleMs / 2, 60_000)));
      this.#sweeper.unref?.();
    }
    return true;
  }

  /**
   * Let go of a session here; `ended`: it ended everywhere, or this process is closing (listen streams get their
   * closing result either way).
   */
  drop(id: string, ended: boolean): void {
    const session = this.#sessions.get(id);
    if (!session) return;
    this.#sessions.delete(id);
    session.close(ended);
    if (this.#sessions.size === 0 && this.#sweeper) {
      clearInterval(this.#sweeper);
      this.#sweeper = undefined;
    }
  }

  // The least recently used session holding nothing open goes (it is made again from its record when needed).
  #evict(): void {
    let oldest: HttpSession | undefined;
    for (const session of this.#sessions.values()) {
      if (!session.busy && (!oldest || session.lastSeen < oldest.lastSeen)) oldest = session;
    }
    if (oldest) this.drop(oldest.id, false);
  }

  #sweep(): void {
    const now = Date.now();
    for (const session of [...this.#sessions.values()]) {
      // A client holding its GET stream open is not idle: the engine is told so.
      if (session.get) {
        const touched = attempt(
          () =>
            andThen(this.#engine.loadSession(session.id), (record) => {
              if (!record) {
                this.drop(session.id, true);
                return;
              }
              // Its connection takes in what another process kept of it (initialized, log level).
              session.connection.sessionKept(record);
              // What it missed of the bus, if anything, is written on its GET stream now.
              return session.catchUp();
            }),
          this.#onError,
        );
        if (touched instanceof Promise) touched.catch(this.#onError);
      } else if (now - session.lastSeen > this.#idleMs && !session.busy) this.drop(session.id, false);
    }
  }

  /** Let go of every session, for good: one made later (a request in flight) is closed as it comes. */
  closeAll(): void {
    this.#closed = true;
    // Ended here, not everywhere: other processes serve on, and the session keeps its store.
    for (const id of this.ids()) this.drop(id, true);
  }
}
