import type { Engine } from "../engine/engine.js";
import { createMemoryEngine } from "../engine/memory.js";
import type { HandleOp, RegisteredKind } from "../registry/router.js";
import { isPromiseLike, type MaybePromise } from "../wire/maybe.js";
import type { EngineHost } from "./bus-hearing.js";
import { type Announcement, BusLink } from "./bus-link.js";

export type { Announcement } from "./bus-link.js";

/**
 * A server's engine and what travels through it: the engine is made (the memory engine, unless one was configured)
 * and started here once; with a shared one, its bus carries the server's announcements (`BusLink`).
 */
export class EngineLink {
  #engine: Engine | undefined;
  #started: true | Promise<void> | undefined;
  readonly #host: EngineHost;
  readonly #bus: BusLink;

  constructor(host: EngineHost, engine: Engine | undefined) {
    this.#host = host;
    this.#engine = engine;
    this.#bus = new BusLink(host, () => this.#engine?.shared === true);
  }

  /** The configured engine, else a memory engine made on first use. */
  get engine(): Engine {
    this.#engine ??= createMemoryEngine();
    return this.#engine;
  }

  /**
   * The engine, made by `make` when none was configured nor made yet (a transport's default for the memory engine's
   * options).
   */
  engineOr(make: () => Engine): Engine {
    this.#engine ??= make();
    return this.#engine;
  }

  /** True while a change heard from another process is being applied. */
  get hearing(): boolean {
    return this.#bus.hearing;
  }

  /** Start the engine once; with a shared one, apply the handle ops kept so far and hear the other processes. */
  start(): MaybePromise<void> {
    const started = this.#started;
    if (started !== undefined) return started === true ? undefined : started;
    const engine = this.engine;
    const finish = (): MaybePromise<void> => (engine.shared ? this.#bus.attach(engine) : undefined);
    const begun = engine.start({ name: this.#host.name, log: (entry) => this.#host.log(entry) });
    const done = isPromiseLike<void>(begun) ? Promise.resolve(begun).then(finish) : finish();
    if (!isPromiseLike<void>(done)) {
      this.#started = true;
      return;
    }
    const pending = Promise.resolve(done).then(
      () => {
        this.#started = true;
      },
      (error: unknown) => {
        // A failed start may be tried again.
        this.#started = undefined;
        throw error;
      },
    );
    this.#started = pending;
    return pending;
  }

  /** Hear each announcement; returns what stops it. */
  listen(listener: (announcement: Announcement) => void): () => void {
    return this.#bus.listen(listener);
  }

  /**
   * A change made here, as its connections were told of it: announced, and broadcast when shared (a list change
   * only when made since, `at` being its change count).
   */
  announce(announcement: Announcement, at?: number): void {
    this.#bus.announce(announcement, at);
  }

  /** A handle's op here (`key` as this server names it): broadcast when shared, unless it was heard. */
  handled(kind: RegisteredKind, key: string, op: HandleOp): void {
    this.#bus.handled(kind, key, op);
  }
}
