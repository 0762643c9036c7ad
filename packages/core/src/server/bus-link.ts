import type { EngineLifecycle, ServerBus, ServerSignal } from "../engine/engine.js";
import type { Guard } from "../registry/guards.js";
import type { Audience, ChangeKind, HandleOp, RegisteredKind } from "../registry/router.js";
import { isPromiseLike, type MaybePromise } from "../wire/maybe.js";
import { BusHearing, type EngineHost, type HandleSignal } from "./bus-hearing.js";
import { handleKey, Unsent } from "./unsent.js";

/** What a server announces of a change made on this process, as its connections are told of it. */
export type Announcement =
  | {
      readonly type: "listChanged";
      readonly kind: ChangeKind;
      /** The names, URIs or URI templates it changed, as this server names them. */
      readonly names: readonly string[];
      readonly audience: Audience;
    }
  | { readonly type: "resourceUpdated"; readonly uri: string };

const SIGNAL_KIND: Record<RegisteredKind, HandleSignal["kind"]> = {
  tool: "tools",
  resource: "resources",
  resourceTemplate: "templates",
  prompt: "prompts",
};
const KINDS: readonly ChangeKind[] = ["tools", "resources", "prompts"];

/**
 * A server's announcements (heard by `listen`), and what travels on its engine's bus (`ServerBus`) once a shared
 * engine is attached: changes made here broadcast, the others' applied here, what could not be said said again once
 * the engine resumes (`EngineLifecycle.onResume`).
 */
export class BusLink {
  readonly #host: EngineHost;
  // Whether the server's engine is shared (undefined while none is made: not shared).
  readonly #shared: () => boolean;
  readonly #hearing: BusHearing;
  #bus: (EngineLifecycle & ServerBus) | undefined;
  // The list change count when broadcasting began: changes made before (registrations every process makes alike)
  // are not broadcast, even when told after.
  #since = 0;
  #listeners: Set<(announcement: Announcement) => void> | undefined;
  // What could not be broadcast (the engine away), said again once it is back.
  readonly #unsent = new Unsent();
  // A resume under way, and whether another came meanwhile (run again after it).
  #resuming = false;
  #again = false;

  constructor(host: EngineHost, shared: () => boolean) {
    this.#host = host;
    this.#shared = shared;
    this.#hearing = new BusHearing(host);
  }

  /** True while a change heard from another process is being applied. */
  get hearing(): boolean {
    return this.#hearing.hearing;
  }

  /** Broadcast from now on on a started shared engine's bus: apply the handle ops kept so far, hear the others. */
  attach(bus: EngineLifecycle & ServerBus): MaybePromise<void> {
    // Heard first: an op made while the kept ones are read is not missed (applying one twice changes nothing).
    bus.onBroadcast((signal) => this.#hearing.heard(signal));
    bus.onResume(() => this.#resume());
    this.#bus = bus;
    this.#since = this.#host.listChanges.count;
    const ops = bus.handleOps();
    if (!isPromiseLike<readonly HandleSignal[]>(ops)) return this.#hearing.applyAll(ops);
    return Promise.resolve(ops).then((kept) => this.#hearing.applyAll(kept));
  }

  /** Hear each announcement; returns what stops it. */
  listen(listener: (announcement: Announcement) => void): () => void {
    this.#listeners ??= new Set();
    const listeners = this.#listeners;
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
    };
  }

  /**
   * A change made here, as its connections were told of it: announced, and broadcast when shared (a list change
   * only when made since, `at` being its change count).
   */
  announce(announcement: Announcement, at = Number.POSITIVE_INFINITY): void {
    // A shared engine not started yet, or a list change from before it started (the registrations every process
    // makes alike at start), is no news for the server's sessions, which other processes may be serving.
    const bus = this.#bus;
    const before = this.#shared() && (bus === undefined || (announcement.type === "listChanged" && at <= this.#since));
    if (!before) this.#tellListeners(announcement);
    if (bus === undefined) return;
    if (announcement.type === "resourceUpdated")
      this.#broadcast(bus, { type: "resourceUpdated", uri: announcement.uri });
    else if (at > this.#since) {
      const signal: ServerSignal = { type: "listChanged", kind: announcement.kind, names: announcement.names };
      this.#broadcast(bus, signal, announcement.audience);
    }
  }

  /** A handle's op here (`key` as this server names it): broadcast when shared, unless it was heard. */
  handled(kind: RegisteredKind, key: string, op: HandleOp): void {
    const bus = this.#bus;
    if (bus === undefined || this.#hearing.hearing) return;
    this.#broadcast(bus, { type: "handle", kind: SIGNAL_KIND[kind], name: key, op });
  }

  #tellListeners(announcement: Announcement): void {
    if (!this.#listeners) return;
    for (const listener of [...this.#listeners]) {
      try {
        listener(announcement);
      } catch (error) {
        this.#host.log({ level: "error", message: `an announcement listener threw: ${String(error)}`, error });
      }
    }
  }

  // Sent, or kept to be sent once the engine is back (a success with something kept means it is: a resume missed).
  #broadcast(bus: ServerBus, signal: ServerSignal, audience?: Audience): void {
    const failed = (error: unknown) => {
      const whole = this.#unsent.keep(signal, audience);
      const what = whole ? "kept to be sent again once the engine is back" : "the oldest kept one was dropped";
      this.#host.log({
        level: "error",
        message: `a ${signal.type} broadcast could not be sent (${what}): ${String(error)}`,
        error,
      });
    };
    const sent = () => {
      if (!this.#unsent.empty) this.#resume();
    };
    try {
      const outcome = bus.broadcast(signal);
      if (isPromiseLike<void>(outcome)) Promise.resolve(outcome).then(sent, failed);
      else sent();
    } catch (error) {
      failed(error);
    }
  }

  /**
   * The engine is back (or a broadcast got through with something kept): say what could not be said, ours first so
   * the latest op wins everywhere, then apply what the others did meanwhile and tell whom it may concern.
   */
  #resume(): void {
    const bus = this.#bus;
    if (bus === undefined) return;
    if (this.#resuming) {
      this.#again = true;
      return;
    }
    this.#resuming = true;
    const run = async (): Promise<void> => {
      do {
        this.#again = false;
        await this.#sendUnsent(bus);
        await this.#catchUp(bus);
      } while (this.#again);
    };
    run()
      .catch((error: unknown) =>
        // What was not sent stays kept: the next resume or successful broadcast tries again.
        this.#host.log({ level: "error", message: `catching up with the engine failed: ${String(error)}`, error }),
      )
      .finally(() => {
        this.#resuming = false;
      });
  }

  async #sendUnsent(bus: ServerBus): Promise<void> {
    const unsent = this.#unsent;
    for (const [key, signal] of [...unsent.handles]) {
      await bus.broadcast(signal);
      if (unsent.handles.get(key) === signal) unsent.handles.delete(key);
    }
    for (const [kind, change] of [...unsent.changes]) {
      unsent.changes.delete(kind);
      const announcement: Announcement = {
        type: "listChanged",
        kind,
        names: [...change.names],
        audience: change.audience && [...change.audience],
      };
      try {
        await bus.broadcast({ type: "listChanged", kind, names: announcement.names });
      } catch (error) {
        unsent.keep({ type: "listChanged", kind, names: announcement.names }, announcement.audience);
        throw error;
      }
      // Its first telling reached this process's connections, but not the sessions kept in the engine.
      this.#tellListeners(announcement);
    }
    for (const uri of [...unsent.uris]) {
      await bus.broadcast({ type: "resourceUpdated", uri });
      unsent.uris.delete(uri);
      this.#tellListeners({ type: "resourceUpdated", uri });
    }
  }

  // The others' handle ops this process may have missed, applied; and since the bus keeps nothing, every listen
  // stream here is told each kind may have changed, which may be spurious (harmless: a client lists again).
  async #catchUp(bus: ServerBus): Promise<void> {
    const changed = new Map<ChangeKind, { names: string[]; guards: Set<Guard> | undefined }>();
    for (const op of await bus.handleOps()) {
      // An op of ours not yet sent is newer than what the engine keeps.
      if (this.#unsent.handles.has(handleKey(op))) continue;
      const change = this.#hearing.apply(op);
      if (!change) continue;
      const kind: ChangeKind = op.kind === "templates" ? "resources" : op.kind;
      let kept = changed.get(kind);
      if (!kept) {
        kept = { names: [], guards: new Set() };
        changed.set(kind, kept);
      }
      kept.names.push(op.name);
      if (change.guard === undefined) kept.guards = undefined;
      else kept.guards?.add(change.guard);
    }
    for (const kind of KINDS) {
      const mine = changed.get(kind);
      // The guards of what is here now, and of what was just removed: it tells no caller of an item it may not see.
      const audience = this.#host.router.audienceOfAll(kind, mine?.guards && new Set(mine.guards));
      if (audience === undefined || audience.length > 0) this.#host.listChanges.tell(kind, audience);
      // Sessions kept in the engine heard of the op from its originator, but may have listed here before it was
      // applied: told of what it changed here.
      if (mine) {
        const guards = mine.guards && [...mine.guards];
        this.#tellListeners({ type: "listChanged", kind, names: mine.names, audience: guards });
      }
    }
  }
}
