import type { ConnectionListener } from "../connection/server-core.js";
import type { Guard } from "../registry/guards.js";
import type { Audience, ChangeKind } from "../registry/router.js";

/**
 * Told of each batch of changes to one kind, once the batch is told: the keys it changed, who may hear of it, and
 * the change count of its latest change (see `count`).
 */
export type OnTold = (kind: ChangeKind, keys: readonly string[], audience: Audience, at: number) => void;

/**
 * A server's connections, told of its list changes and resource updates. Changes made together (a batch of
 * registrations) reach each client as one notification per kind, and a connection that attached after the last of
 * them (it listed what is there now) hears nothing of them.
 */
export class ListChanges {
  // Each listener with the change count when it attached: it hears only of changes made after that.
  readonly #listeners = new Map<ConnectionListener, number>();
  // Per kind: the change count of the latest change, who may hear of the changes together (undefined: anyone; else a
  // caller one of these guards allows, each guard once however many items share it), and the keys they changed.
  readonly #pending = new Map<ChangeKind, { at: number; audience: Set<Guard> | undefined; keys: Set<string> }>();
  readonly #told: OnTold | undefined;
  #changes = 0;

  /** `told`: hears each batch as the connections are told of it (the server's announcements). */
  constructor(told?: OnTold) {
    this.#told = told;
  }

  /** How many changes were made so far. */
  get count(): number {
    return this.#changes;
  }

  attach(listener: ConnectionListener): void {
    this.#listeners.set(listener, this.#changes);
  }

  detach(listener: ConnectionListener): void {
    this.#listeners.delete(listener);
  }

  /** A `kind` list changed for `audience`; told once the current task's changes are all made. */
  changed(kind: ChangeKind, audience: Audience, keys: readonly string[]): void {
    if (this.#pending.size === 0) queueMicrotask(() => this.#tell());
    const at = ++this.#changes;
    const pending = this.#pending.get(kind);
    if (pending === undefined) {
      this.#pending.set(kind, { at, audience: audience && new Set(audience), keys: new Set(keys) });
      return;
    }
    pending.at = at;
    for (const key of keys) pending.keys.add(key);
    // Changes told together reach everyone any of them may reach: added in place, so a batch of N costs N.
    if (audience === undefined) pending.audience = undefined;
    else if (pending.audience) for (const guard of audience) pending.audience.add(guard);
  }

  /** Tell every connection now of a change made elsewhere (another process): not announced again. */
  tell(kind: ChangeKind, audience: Audience): void {
    for (const listener of this.#listeners.keys()) listener.listChanged(kind, audience);
  }

  /** Tell every connection that the resource at `uri` changed (each passes it on to whoever subscribed). */
  resourceUpdated(uri: string): void {
    for (const listener of this.#listeners.keys()) listener.resourceUpdated(uri);
  }

  #tell(): void {
    const kinds = [...this.#pending].map(([kind, { at, audience, keys }]) => ({
      kind,
      at,
      audience: audience && [...audience],
      keys,
    }));
    this.#pending.clear();
    for (const [listener, since] of this.#listeners) {
      for (const { kind, at, audience } of kinds) if (at > since) listener.listChanged(kind, audience);
    }
    if (this.#told) for (const { kind, audience, keys, at } of kinds) this.#told(kind, [...keys], audience, at);
  }
}
