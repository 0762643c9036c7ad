import type { Client } from "@modelcontextprotocol/client";
import type { LogEntry } from "@toolsmith/core";
import type { Link } from "./link.js";

// The remote's resource updates: a URI is subscribed on the remote while one of the gateway's clients is subscribed
// to it on this process (core calls `watch`), and each update the remote sends for it goes to the gateway's
// subscribers through `server.resourceUpdated`, so only they hear it, in whichever era they speak.

/** The most URIs subscribed on one remote at once by default; past it, a URI is not subscribed there (logged). */
export const DEFAULT_MAX_SUBSCRIPTIONS = 1000;

const UPDATED = "notifications/resources/updated";
// What client 2.4.0's HTTP transport reports when its standalone stream is gone for good (onerror's message).
const STREAM_LOST = /SSE stream|reconnection attempts/;

export class Updates {
  readonly #link: () => Link;
  readonly #max: number;
  readonly #updated: (uri: string) => void;
  readonly #log: (entry: LogEntry) => void;
  // Each watched URI and the client it is subscribed on (undefined: not subscribed now), with how to stop it there.
  readonly #watched = new Map<string, { client?: Client; stop?: Promise<(() => Promise<unknown>) | undefined> }>();

  // Each URI's unsubscribe on the remote while it is under way.
  readonly #stopping = new Map<string, Promise<void>>();
  // After a stream the remote ended, the wait before connecting again (doubling; reset by an update heard).
  #lostWait = 0;
  #again: ReturnType<typeof setTimeout> | undefined;
  #closed = false;

  constructor(link: () => Link, max: number, updated: (uri: string) => void, log: (entry: LogEntry) => void) {
    this.#link = link;
    this.#max = max;
    this.#updated = updated;
    this.#log = log;
  }

  /** Called with each new client before it connects. */
  setup(client: Client): void {
    client.setNotificationHandler(UPDATED, (notification) => {
      const { uri } = notification.params;
      if (this.#watched.get(uri)?.client !== client) return;
      this.#lostWait = 0;
      this.#updated(uri);
    });
  }

  /**
   * A new connection: every URI watched is subscribed on it (the one before it is gone, and its subscriptions); if
   * it is lost while a URI is subscribed on it, the gateway connects again by itself rather than at its next use.
   */
  connected(client: Client): void {
    for (const uri of this.#watched.keys()) this.#subscribe(uri, client);
    // Lost: a stdio remote's process ended (the connection closed), or a handshake-era HTTP remote's standalone
    // stream, which carries the updates, could not be opened again (the remote restarted and forgot the session).
    const closed = client.onclose;
    client.onclose = () => {
      closed?.();
      this.#lostConnection(client);
    };
    const failed = client.onerror;
    client.onerror = (error) => {
      failed?.(error);
      if (STREAM_LOST.test(String((error as Error | undefined)?.message))) this.#lostConnection(client);
    };
  }

  /** The resource's `watch`: subscribe `uri` on the remote until the returned stop. */
  watch = (uri: string): (() => void) => {
    if (this.#watched.size >= this.#max) {
      const message = `${this.#link().label}: ${uri} not subscribed there, ${this.#max} URIs are`;
      this.#log({ level: "warning", message });
      return () => {};
    }
    this.#watched.set(uri, {});
    this.#link()
      .client()
      .then(
        (client) => {
          if (this.#watched.get(uri)?.client === undefined) this.#subscribe(uri, client);
        },
        () => undefined,
      );
    return () => {
      const watched = this.#watched.get(uri);
      this.#watched.delete(uri);
      if (!watched?.stop) return;
      // A subscribe of the same URI after it waits for this unsubscribe, so the remote never ends unsubscribed.
      const stopped: Promise<void> = watched.stop
        .then((stop) => stop?.())
        .then(
          () => undefined,
          () => undefined,
        )
        .finally(() => {
          if (this.#stopping.get(uri) === stopped) this.#stopping.delete(uri);
        });
      this.#stopping.set(uri, stopped);
    };
  };

  #subscribe(uri: string, client: Client): void {
    const watched = this.#watched.get(uri);
    if (!watched || !client.getServerCapabilities()?.resources?.subscribe) return;
    watched.client = client;
    const after = this.#stopping.get(uri) ?? Promise.resolve();
    watched.stop = after
      .then(() => this.#open(uri, client))
      .catch((error: unknown) => {
        if (this.#watched.get(uri) === watched) watched.client = undefined;
        this.#log({ level: "warning", message: `${this.#link().label}: subscribing to ${uri} failed`, error });
        return undefined;
      });
  }

  // 2026-07-28: a listen stream naming the URI; the handshake era: resources/subscribe.
  async #open(uri: string, client: Client): Promise<() => Promise<unknown>> {
    if (client.getNegotiatedProtocolVersion?.() === "2026-07-28") {
      const stream = await client.listen({ resourceSubscriptions: [uri] });
      void stream.closed.then((cause) => {
        if (cause !== "local" && this.#watched.get(uri)?.client === client) this.#lostConnection(client);
      });
      return () => stream.close();
    }
    await client.subscribeResource({ uri });
    return () => client.unsubscribeResource({ uri });
  }

  // A connection with URIs subscribed on it is lost: connect again after a wait (doubling while connecting fails or
  // the remote keeps ending its streams at once; reset by an update heard), so the subscriptions come back by themselves.
  #lostConnection(client: Client): void {
    if (this.#again || this.#closed) return;
    if (![...this.#watched.values()].some((watched) => watched.client === client)) return;
    this.#link().drop(client);
    this.#retry();
  }

  #retry(): void {
    if (this.#again || this.#closed || this.#watched.size === 0) return;
    this.#lostWait = Math.min(30_000, this.#lostWait === 0 ? 250 : this.#lostWait * 2);
    this.#again = setTimeout(() => {
      this.#again = undefined;
      this.#link()
        .client()
        .catch(() => this.#retry());
    }, this.#lostWait);
    this.#again.unref?.();
  }

  close(): void {
    this.#closed = true;
    clearTimeout(this.#again);
    this.#again = undefined;
  }
}
