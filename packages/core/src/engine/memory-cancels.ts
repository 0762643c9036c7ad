/** Cancellations kept per session (the newest this many): a client fills its own session's alone. */
export const MAX_KEPT_CANCELS = 64;

/**
 * The client's cancellations kept with their session until the process running the request takes them (or the
 * session ends): what a shared engine keeps so that a cancellation missed on the bus still stops its handler.
 */
export class KeptCancels {
  // session → request (its id's JSON text) → the cancellation's line.
  readonly #kept = new Map<string, Map<string, string>>();

  keep(session: string, request: string, line: string): void {
    const kept = this.#kept.get(session) ?? new Map<string, string>();
    if (kept.has(request)) return;
    kept.set(request, line);
    // A Map keeps insertion order: the first key is the oldest.
    if (kept.size > MAX_KEPT_CANCELS) kept.delete(kept.keys().next().value as string);
    this.#kept.set(session, kept);
  }

  /** Those of `running` a kept cancellation names, each taken once. */
  take(running: readonly { readonly session: string; readonly request: string }[]) {
    const taken: { session: string; request: string; line: string }[] = [];
    for (const { session, request } of running) {
      const kept = this.#kept.get(session);
      const line = kept?.get(request);
      if (kept === undefined || line === undefined) continue;
      kept.delete(request);
      if (kept.size === 0) this.#kept.delete(session);
      taken.push({ session, request, line });
    }
    return taken;
  }

  /** The session ended: what it kept goes with it. */
  ended(session: string): void {
    this.#kept.delete(session);
  }

  clear(): void {
    this.#kept.clear();
  }
}
