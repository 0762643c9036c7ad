import type { Redis } from "ioredis";

type Listener = (message: unknown) => void;

interface Channel {
  readonly listeners: Set<Listener>;
  /** Settles once Redis confirmed the subscription. */
  readonly subscribed: Promise<void>;
}

/**
 * Pub/sub channels over one dedicated subscriber connection: one SUBSCRIBE per channel however many listeners it has
 * in this process, each message parsed once and given to each listener in order. The client subscribes again to every
 * channel after it reconnects (ioredis's autoResubscribe); what was published while it was away is not heard.
 */
export class Channels {
  readonly #subscriber: Redis;
  readonly #channels = new Map<string, Channel>();
  // Channels left without listeners whose UNSUBSCRIBE failed (Redis away): tried again on `tidy`.
  readonly #stale = new Set<string>();

  constructor(subscriber: Redis) {
    this.#subscriber = subscriber;
    subscriber.on("message", (name: string, text: string) => this.#deliver(name, text));
  }

  /** Hear `name` once Redis confirmed it; the returned function stops (idempotent). Rejects when Redis is away. */
  async listen(name: string, listener: Listener): Promise<() => Promise<void>> {
    let channel = this.#channels.get(name);
    if (!channel) {
      this.#stale.delete(name);
      const subscribed = this.#subscriber.subscribe(name).then(() => undefined);
      channel = { listeners: new Set(), subscribed };
      this.#channels.set(name, channel);
      const made = channel;
      subscribed.catch(() => {
        if (this.#channels.get(name) === made) this.#channels.delete(name);
      });
    }
    channel.listeners.add(listener);
    try {
      await channel.subscribed;
    } catch (error) {
      channel.listeners.delete(listener);
      throw error;
    }
    let listening = true;
    return async () => {
      if (!listening) return;
      listening = false;
      const current = this.#channels.get(name);
      if (current !== channel) return;
      current.listeners.delete(listener);
      if (current.listeners.size > 0) return;
      this.#channels.delete(name);
      await this.#unsubscribe(name);
    };
  }

  /** Unsubscribe again from the channels a failed UNSUBSCRIBE left behind. */
  async tidy(): Promise<void> {
    for (const name of [...this.#stale]) if (!this.#channels.has(name)) await this.#unsubscribe(name);
  }

  /** Forget every listener (the connection is about to close). */
  clear(): void {
    this.#channels.clear();
    this.#stale.clear();
  }

  async #unsubscribe(name: string): Promise<void> {
    try {
      await this.#subscriber.unsubscribe(name);
      this.#stale.delete(name);
    } catch {
      this.#stale.add(name);
    }
  }

  #deliver(name: string, text: string): void {
    const channel = this.#channels.get(name);
    if (!channel || channel.listeners.size === 0) return;
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      return; // Not one of ours: someone else published on our channel.
    }
    for (const listener of [...channel.listeners]) {
      try {
        listener(message);
      } catch {
        // A failing listener is its owner's bug; the others still hear the message.
      }
    }
  }
}
