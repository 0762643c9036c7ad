import type { ServerSignal } from "../engine/engine.js";
import type { Guard } from "../registry/guards.js";
import type { Audience, ChangeKind } from "../registry/router.js";

type HandleSignal = Extract<ServerSignal, { type: "handle" }>;

/** A list change made here whose broadcast failed: its names, and who may hear of it (undefined: anyone). */
export interface UnsentChange {
  readonly names: Set<string>;
  audience: Set<Guard> | undefined;
}

// Bounds on what is kept for each (a handle's op is kept per handle, so only a server with more handles than this
// loses any).
const MAX_HANDLES = 10_000;
const MAX_NAMES = 10_000;
const MAX_URIS = 1_000;

/**
 * What a process could not tell the others while its engine was away, kept to be said once it is back: each handle's
 * latest op, the list changes made here (names and audience merged per kind), the resource URIs updated here.
 */
export class Unsent {
  readonly handles = new Map<string, HandleSignal>();
  readonly changes = new Map<ChangeKind, UnsentChange>();
  readonly uris = new Set<string>();

  get empty(): boolean {
    return this.handles.size === 0 && this.changes.size === 0 && this.uris.size === 0;
  }

  /** Keep `signal` (a handle's op replaces its earlier one); false when one had to be dropped to stay bounded. */
  keep(signal: ServerSignal, audience?: Audience): boolean {
    if (signal.type === "handle") {
      const key = handleKey(signal);
      this.handles.delete(key);
      this.handles.set(key, signal);
      return trim(this.handles, MAX_HANDLES);
    }
    if (signal.type === "resourceUpdated") {
      this.uris.add(signal.uri);
      return trim(this.uris, MAX_URIS);
    }
    let change = this.changes.get(signal.kind);
    if (!change) {
      change = { names: new Set(), audience: audience && new Set(audience) };
      this.changes.set(signal.kind, change);
    } else if (audience === undefined) change.audience = undefined;
    else if (change.audience) for (const guard of audience) change.audience.add(guard);
    for (const name of signal.names) change.names.add(name);
    return trim(change.names, MAX_NAMES);
  }
}

/** What names a handle across processes: its kind and key. */
export function handleKey(signal: HandleSignal): string {
  return `${signal.kind} ${signal.name}`;
}

// The oldest dropped past `max`: true when nothing was.
function trim(kept: Map<string, unknown> | Set<string>, max: number): boolean {
  if (kept.size <= max) return true;
  for (const key of kept.keys()) {
    kept.delete(key);
    break;
  }
  return false;
}
