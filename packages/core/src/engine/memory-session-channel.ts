import { LocalChannels } from "./memory-channels.js";
import type { RunningRequest } from "./request-leases.js";
import type { SessionChannel, SessionSignal } from "./session-channel.js";

// Client lines kept for this process (as a shared engine keeps them for one): the newest this many.
const MAX_CLIENT_LINES = 256;
// Of those, at most this many from one session until they are taken: one client's flood pushes out no other's.
const MAX_CLIENT_LINES_PER_SESSION = 16;
/** Cancellations kept per session (the newest this many): a client fills its own session's alone. */
export const MAX_KEPT_CANCELS = 64;

/**
 * The memory engine's `SessionChannel`: each session's signals in process, and what a shared engine would keep for a
 * process that missed one (client lines addressed to this process, cancellations with their live session).
 */
export class MemorySessionChannel implements SessionChannel {
  readonly #channels = new LocalChannels<SessionSignal>();
  readonly #node: () => string;
  readonly #live: (session: string) => boolean;
  readonly #clientLines: { session: string; line: string }[] = [];
  // session → request (its id's JSON text) → the cancellation's line.
  readonly #cancels = new Map<string, Map<string, string>>();

  /**
   * `node`: this process's node id, asked when needed (the engine makes it on first use); `live` says whether a session
   * is live (a cancellation is kept only with one).
   */
  constructor(node: () => string, live: (session: string) => boolean) {
    this.#node = node;
    this.#live = live;
  }

  signal(session: string, signal: SessionSignal): void {
    if (signal.type === "client" && signal.to === this.#node()) {
      const held = this.#clientLines.filter((kept) => kept.session === session).length;
      if (held < MAX_CLIENT_LINES_PER_SESSION) this.#clientLines.push({ session, line: signal.line });
      if (this.#clientLines.length > MAX_CLIENT_LINES) this.#clientLines.shift();
    }
    if (signal.type === "client" && signal.cancels !== undefined && this.#live(session)) {
      this.#keepCancel(session, signal.cancels, signal.line);
    }
    this.#channels.signal(session, signal);
  }

  follow(session: string, listener: (signal: SessionSignal) => void): () => void {
    return this.#channels.follow(session, listener);
  }

  takeClientLines(): readonly { readonly session: string; readonly line: string }[] {
    return this.#clientLines.splice(0);
  }

  takeCancels(running: readonly Pick<RunningRequest, "session" | "request">[]) {
    const taken: { session: string; request: string; line: string }[] = [];
    for (const { session, request } of running) {
      const kept = this.#cancels.get(session);
      const line = kept?.get(request);
      if (kept === undefined || line === undefined) continue;
      kept.delete(request);
      if (kept.size === 0) this.#cancels.delete(session);
      taken.push({ session, request, line });
    }
    return taken;
  }

  /** The session ended: its cancellations go with it, and its followers hear `ended`. */
  ended(session: string): void {
    this.#cancels.delete(session);
    this.#channels.signal(session, { type: "ended" });
  }

  /** Drop every follower and everything kept (the engine closed). */
  close(): void {
    this.#channels.close();
    this.#clientLines.length = 0;
    this.#cancels.clear();
  }

  #keepCancel(session: string, request: string, line: string): void {
    const kept = this.#cancels.get(session) ?? new Map<string, string>();
    if (kept.has(request)) return;
    kept.set(request, line);
    // A Map keeps insertion order: the first key is the oldest.
    if (kept.size > MAX_KEPT_CANCELS) kept.delete(kept.keys().next().value as string);
    this.#cancels.set(session, kept);
  }
}
