import type { LogEntry } from "../context/logger.js";
import type { ServerSignal } from "../engine/engine.js";
import type { Guard } from "../registry/guards.js";
import type { Audience, ChangeKind, RegisteredKind, Router } from "../registry/router.js";
import type { ListChanges } from "./list-changes.js";

/** A handle op as it travels on the bus. */
export type HandleSignal = Extract<ServerSignal, { type: "handle" }>;

/** What the link to the engine needs of its server. */
export interface EngineHost {
  readonly name: string;
  readonly router: Router;
  readonly listChanges: ListChanges;
  log(entry: LogEntry): void;
}

const REGISTERED_KIND: Record<HandleSignal["kind"], RegisteredKind> = {
  tools: "tool",
  resources: "resource",
  templates: "resourceTemplate",
  prompts: "prompt",
};
// Guards of items removed by another process's handle, kept until its list change comes (bounded: it may never).
const MAX_REMOVED = 10_000;

/**
 * What another process said on the bus, applied here: its handle ops to this process's registry (by name), its list
 * changes and resource updates told to whom they may concern here.
 */
export class BusHearing {
  readonly #host: EngineHost;
  readonly #removed = new Map<string, Guard | undefined>();
  // Set while another process's handle op is applied: it is neither announced nor broadcast again.
  #hearing = false;

  constructor(host: EngineHost) {
    this.#host = host;
  }

  /** True while a change heard from another process is being applied. */
  get hearing(): boolean {
    return this.#hearing;
  }

  /** A signal heard from another process; a failure is logged (the bus goes on). */
  heard(signal: ServerSignal): void {
    try {
      if (signal.type === "handle") this.apply(signal);
      else if (signal.type === "resourceUpdated") this.#host.listChanges.resourceUpdated(signal.uri);
      else {
        const audience = this.#audienceOf(signal.kind, signal.names);
        if (audience === undefined || audience.length > 0) this.#host.listChanges.tell(signal.kind, audience);
      }
    } catch (error) {
      this.#host.log({ level: "error", message: `a heard ${signal.type} failed: ${String(error)}`, error });
    }
  }

  applyAll(ops: readonly HandleSignal[]): void {
    for (const op of ops) this.apply(op);
  }

  /**
   * Another process's handle op, applied here by name (its list change arrives as its own signal): the changed item's
   * guard when it changed what a caller can see here.
   */
  apply(signal: HandleSignal): { guard: Guard | undefined } | undefined {
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
