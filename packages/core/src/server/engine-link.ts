import type { LogEntry } from "../context/logger.js";
import type { Engine, ServerSignal } from "../engine/engine.js";
import { createMemoryEngine } from "../engine/memory.js";
import type { Guard } from "../registry/guards.js";
import type { Audience, ChangeKind, HandleOp, RegisteredKind, Router } from "../registry/router.js";
import { isPromiseLike, type MaybePromise } from "../wire/maybe.js";
import type { ListChanges } from "./list-changes.js";
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

type HandleSignal = Extract<ServerSignal, { type: "handle" }>;

const SIGNAL_KIND: Record<RegisteredKind, HandleSignal["kind"]> = {
  tool: "tools",
  resource: "resources",
  resourceTemplate: "templates",
  prompt: "prompts",
};
const REGISTERED_KIND: Record<HandleSignal["kind"], RegisteredKind> = {
  tools: "tool",
  resources: "resource",
  templates: "resourceTemplate",
  prompts: "prompt",
};
const KINDS: readonly ChangeKind[] = ["tools", "resources", "prompts"];
// Guards of items removed by another process's handle, kept until its list change comes (bounded: it may never).
const MAX_REMOVED = 10_000;

/** What the link needs of its server. */
export interface EngineHost {
  readonly name: string;
  readonly router: Router;
  readonly listChanges: ListChanges;
  log(entry: LogEntry): void;
}

/**
 * A server's engine and what travels through it: its announcements (heard by `onAnnounce`), broadcast to the
 * server's other processes when the engine is shared, and theirs applied and told here.
 */
export class EngineLink {
  readonly #host: EngineHost;
  #engine: Engine | undefined;
  #started: true | Promise<void> | undefined;
  // Started with a shared engine: changes made here from then on are broadcast.
  #broadcasting = false;
  // The list change count when broadcasting began: changes made before (registrations every process makes alike)
  // are not broadcast, even when told after.
  #since = 0;
  // Set while another process's handle op is applied: it is neither announced nor broadcast again.
  #hearing = false;
  #listeners: Set<(announcement: Announcement) => void> | undefined;
  readonly #removed = new Map<string, Guard | undefined>();
  // What could not be broadcast (the engine away), said again once it is back.
  readonly #unsent = new Unsent();
  // A resume under way, and whether another came meanwhile (run again after it).
  #resuming = false;
  #again = false;

  constructor(host: EngineHost, engine: Engine | undefined) {
    this.#host = host;
    this.#engine = engine;
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
    return this.#hearing;
  }

  /** Start the engine once; with a shared one, apply the handle ops kept so far and hear the other processes. */
  start(): MaybePromise<void> {
    const started = this.#started;
    if (started !== undefined) return started === true ? undefined : started;
    const engine = this.engine;
    const finish = (): MaybePromise<void> => {
      if (!engine.shared) return;
      // Heard first: an op made while the kept ones are read is not missed (applying one twice changes nothing).
      engine.onBroadcast((signal) => this.#heard(signal));
      engine.onResume(() => this.#resume());
      this.#broadcasting = true;
      this.#since = this.#host.listChanges.count;
      const ops = engine.handleOps();
      if (!isPromiseLike<readonly HandleSignal[]>(ops)) return this.#applyAll(ops);
      return Promise.resolve(ops).then((kept) => this.#applyAll(kept));
    };
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
    const before =
      this.#engine?.shared === true &&
      (!this.#broadcasting || (announcement.type === "listChanged" && at <= this.#since));
    if (!before) this.#tellListeners(announcement);
    if (!this.#broadcasting) return;
    if (announcement.type === "resourceUpdated") this.#broadcast({ type: "resourceUpdated", uri: announcement.uri });
    else if (at > this.#since) {
      const signal: ServerSignal = { type: "listChanged", kind: announcement.kind, names: announcement.names };
      this.#broadcast(signal, announcement.audience);
    }
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

  /** A handle's op here (`key` as this server names it): broadcast when shared, unless it was heard. */
  handled(kind: RegisteredKind, key: string, op: HandleOp): void {
    if (!this.#broadcasting || this.#hearing) return;
    this.#broadcast({ type: "handle", kind: SIGNAL_KIND[kind], name: key, op });
  }

  // Sent, or kept to be sent once the engine is back (a success with something kept means it is: a resume missed).
  #broadcast(signal: ServerSignal, audience?: Audience): void {
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
      const outcome = this.engine.broadcast(signal);
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
    if (this.#resuming) {
      this.#again = true;
      return;
    }
    this.#resuming = true;
    const run = async (): Promise<void> => {
      do {
        this.#again = false;
        await this.#sendUnsent();
        await this.#catchUp();
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

  async #sendUnsent(): Promise<void> {
    const engine = this.engine;
    const unsent = this.#unsent;
    for (const [key, signal] of [...unsent.handles]) {
      await engine.broadcast(signal);
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
        await engine.broadcast({ type: "listChanged", kind, names: announcement.names });
      } catch (error) {
        unsent.keep({ type: "listChanged", kind, names: announcement.names }, announcement.audience);
        throw error;
      }
      // Its first telling reached this process's connections, but not the sessions kept in the engine.
      this.#tellListeners(announcement);
    }
    for (const uri of [...unsent.uris]) {
      await engine.broadcast({ type: "resourceUpdated", uri });
      unsent.uris.delete(uri);
      this.#tellListeners({ type: "resourceUpdated", uri });
    }
  }

  // The others' handle ops this process may have missed, applied; and since the bus keeps nothing, every listen
  // stream here is told each kind may have changed, which may be spurious (harmless: a client lists again).
  async #catchUp(): Promise<void> {
    const changed = new Map<ChangeKind, { names: string[]; guards: Set<Guard> | undefined }>();
    for (const op of await this.engine.handleOps()) {
      // An op of ours not yet sent is newer than what the engine keeps.
      if (this.#unsent.handles.has(handleKey(op))) continue;
      const change = this.#apply(op);
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

  #applyAll(ops: readonly HandleSignal[]): void {
    for (const op of ops) this.#apply(op);
  }

  /**
   * Another process's handle op, applied here by name (its list change arrives as its own signal): the changed item's
   * guard when it changed what a caller can see here.
   */
  #apply(signal: HandleSignal): { guard: Guard | undefined } | undefined {
    const kind = REGISTERED_KIND[signal.kind];
    const handle = this.#host.router.registered(kind, signal.name);
    if (handle === undefined || handle.removed) return;
    const changeKind: ChangeKind = signal.kind === "templates" ? "resources" : signal.kind;
    const guard = this.#host.router.guardOf(changeKind, signal.name) ?? undefined;
    const visible = handle.enabled;
    if (signal.op === "remove") {
      if (this.#removed.size >= MAX_REMOVED) this.#removed.clear();
      this.#removed.set(`${changeKind} ${signal.name}`, guard);
    }
    this.#hearing = true;
    try {
      if (signal.op === "enable") handle.enable();
      else if (signal.op === "disable") handle.disable();
      else handle.remove();
    } finally {
      this.#hearing = false;
    }
    const now = !handle.removed && handle.enabled;
    return now === visible ? undefined : { guard };
  }

  #heard(signal: ServerSignal): void {
    try {
      if (signal.type === "handle") this.#apply(signal);
      else if (signal.type === "resourceUpdated") this.#host.listChanges.resourceUpdated(signal.uri);
      else {
        const audience = this.#audienceOf(signal.kind, signal.names);
        if (audience === undefined || audience.length > 0) this.#host.listChanges.tell(signal.kind, audience);
      }
    } catch (error) {
      this.#host.log({ level: "error", message: `a heard ${signal.type} failed: ${String(error)}`, error });
    }
  }

  // Who here may hear of a change to these names: everyone once one is unguarded; a name unknown here tells no one.
  #audienceOf(kind: ChangeKind, names: readonly string[]): Audience {
    const guards: Guard[] = [];
    for (const name of names) {
      const removed = `${kind} ${name}`;
      let guard = this.#host.router.guardOf(kind, name);
      if (guard === null && this.#removed.has(removed)) guard = this.#removed.get(removed);
      this.#removed.delete(removed);
      if (guard === undefined) return undefined;
      if (guard !== null) guards.push(guard);
    }
    return guards;
  }
}
