/** One follower: its listener, and whether it still follows. */
interface Follower<S> {
  readonly listener: (signal: S) => void;
  following: boolean;
}

/** A signal waiting to be heard, with the followers its channel had when it was sent. */
interface Queued<S> {
  readonly followers: readonly Follower<S>[];
  readonly signal: S;
}

/**
 * Channels in one process: each follower of a channel hears each signal sent after it followed, once, in order.
 * Delivery is queued and runs in a microtask (no promise is made), as a shared engine's would arrive: never inside the
 * call that sent it, so a listener cannot re-enter its sender, and a signal sent by a listener waits its turn.
 */
export class LocalChannels<S> {
  readonly #channels = new Map<string, Set<Follower<S>>>();
  // Every channel's signals in one queue: order holds across channels too.
  #queue: Queued<S>[] = [];
  #scheduled = false;
  #closed = false;

  /** Hear `channel`'s signals until the returned function is called (idempotent). */
  follow(channel: string, listener: (signal: S) => void): () => void {
    const follower: Follower<S> = { listener, following: true };
    let followers = this.#channels.get(channel);
    if (!followers) {
      followers = new Set();
      this.#channels.set(channel, followers);
    }
    followers.add(follower);
    return () => {
      if (!follower.following) return;
      follower.following = false;
      const current = this.#channels.get(channel);
      current?.delete(follower);
      if (current?.size === 0) this.#channels.delete(channel);
    };
  }

  /** Queue `signal` for whoever follows `channel` now. */
  signal(channel: string, signal: S): void {
    const followers = this.#channels.get(channel);
    if (!followers || this.#closed) return;
    this.#queue.push({ followers: [...followers], signal });
    if (!this.#scheduled) {
      this.#scheduled = true;
      queueMicrotask(() => this.#drain());
    }
  }

  /** Drop every follower and every signal not yet heard. */
  close(): void {
    this.#closed = true;
    for (const followers of this.#channels.values()) for (const follower of followers) follower.following = false;
    this.#channels.clear();
    this.#queue = [];
  }

  #drain(): void {
    this.#scheduled = false;
    // Signals sent while draining join this same queue, after what was already in it.
    for (let i = 0; i < this.#queue.length; i++) {
      const { followers, signal } = this.#queue[i] as Queued<S>;
      for (const follower of followers) {
        if (!follower.following) continue;
        try {
          follower.listener(signal);
        } catch {
          // A failing listener is its owner's bug; the other followers still hear the signal.
        }
      }
    }
    this.#queue = [];
  }
}
