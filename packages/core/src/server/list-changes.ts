import type { ConnectionListener } from "../connection/server-core.js";
import type { Guard } from "../registry/guards.js";
import type { Audience, ChangeKind } from "../registry/router.js";

/**
 * A server's connections, told of its list changes and resource updates. Changes made together (a batch of
 * registrations) reach each client as one notification per kind, and a connection that attached after the last of
 * them (it listed what is there now) hears nothing of them.
 */
export class ListChanges {
  // Each listener with the change count when it attached: it hears only of changes made after that.
  readonly #listeners = new Map<ConnectionListener, number>();
  // Per kind: the change count of the latest change, and who may hear of the changes together (undefined: anyone;
  // else a caller one of these guards allows, each guard once however many items share it).
  readonly #pending = new Map<ChangeKind, { at: number; audience: Set<Guard> | undefined }>();
  #changes = 0;

  attach(listener: ConnectionListener): void {
    this.#listeners.set(listener, this.#changes);
  }

  detach(listener: ConnectionListener): void {
    this.#listeners.delete(listener);
  }

  /** A `kind` list changed for `audience`; told once the current task's changes are all made. */
  changed(kind: ChangeKind, audience: Audience): void {
    if (this.#pending.size === 0) queueMicrotask(() => this.#tell());
    const at = ++this.#changes;
    const pending = this.#pending.get(kind);
    if (pending === undefined) {
      this.#pending.set(kind, { at, audience: audience && new Set(audience) });
      return;
    }
    pending.at = at;
    // Changes told together reach everyone any of them may reach: added in place, so a batch of N costs N.
    if (audience === undefined) pending.audience = undefined;
    else if (pending.audience) for (const guard of audience) pending.audience.add(guard);
  }

  /** Tell every connection that the resource at `uri` changed (each passes it on to whoever subscribed). */
  resourceUpdated(uri: string): void {
    for (const listener of this.#listeners.keys()) listener.resourceUpdated(uri);
  }

  #tell(): void {
    const kinds = [...this.#pending].map(([kind, { at, audience }]) => ({
      kind,
      at,
      audience: audience && [...audience],
    }));
    this.#pending.clear();
    for (const [listener, since] of this.#listeners) {
      for (const { kind, at, audience } of kinds) if (at > since) listener.listChanged(kind, audience);
    }
  }
}
