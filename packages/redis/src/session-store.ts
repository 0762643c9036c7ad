import {
  type InitializedSession,
  SESSION_BOUNDS,
  type SessionChange,
  type SessionLimits,
  type SessionRecord,
  type SessionStore,
  subscriptionUriRefusal,
  tooManySubscriptions,
} from "@toolsmith/core/engine";
import type { RedisLifecycle } from "./lifecycle.js";
import { bounded } from "./options.js";
import { decodeInitialized, decodeRecord, encodeFixed, encodePrincipal } from "./records.js";
import * as scripts from "./session-scripts.js";

// Keys outlive a session's idle time by this much, so the sweep (not Redis's expiry) ends it and tells its followers.
const GRACE_MS = 60_000;
// After the first load of a turn of the event loop, the rest of that turn's go to Redis in one script, at most this many.
const MOST_LOADS = 128;

interface Load {
  readonly id: string;
  readonly resolve: (record: SessionRecord | undefined) => void;
  readonly reject: (error: unknown) => void;
}

/** The Redis engine's `SessionStore`: each session a hash, the limits counted in one script with the create. */
export class RedisSessionStore implements SessionStore {
  readonly #redis: RedisLifecycle;
  // The loads asked for since the turn's first went out: sent after this turn's I/O, one write and one reply for all.
  #loads: Load[] = [];
  // A load went out in this turn of the event loop.
  #turn = false;

  constructor(redis: RedisLifecycle) {
    this.#redis = redis;
  }

  async createSession(record: SessionRecord, limits: SessionLimits): Promise<"created" | "full" | "full-for-caller"> {
    const outcome = await this.#redis.run(scripts.CREATE, [
      record.id,
      encodeFixed(record),
      record.caller ?? "",
      record.initialized ? "1" : "0",
      record.logLevel ?? "",
      bounded(Math.max(1, Math.ceil(limits.idleMs))),
      bounded(limits.max),
      bounded(limits.perCaller),
      GRACE_MS,
      encodePrincipal(record),
    ]);
    if (outcome === "exists") throw new Error(`A session with id ${JSON.stringify(record.id)} already exists`);
    return outcome as "created" | "full" | "full-for-caller";
  }

  loadSession(id: string): Promise<SessionRecord | undefined> {
    return new Promise((resolve, reject) => {
      const load = { id, resolve, reject };
      if (!this.#turn) {
        // The first of a turn goes at once: Redis answers it while this process takes in the rest.
        this.#turn = true;
        setImmediate(this.#endTurn);
        this.#send([load]);
        return;
      }
      this.#loads.push(load);
      if (this.#loads.length >= MOST_LOADS) this.#flush();
    });
  }

  readonly #endTurn = (): void => {
    this.#turn = false;
    this.#flush();
  };

  #flush(): void {
    const loads = this.#loads;
    if (loads.length === 0) return;
    this.#loads = [];
    this.#send(loads);
  }

  // Each load as one would run alone (the script takes them in order); Redis's failure is each one's.
  #send(loads: readonly Load[]): void {
    const fail = (error: unknown) => {
      for (const load of loads) load.reject(error);
    };
    let sent: Promise<unknown>;
    try {
      sent = this.#redis.run(scripts.LOAD, [GRACE_MS, ...loads.map((load) => load.id)]);
    } catch (error) {
      fail(error);
      return;
    }
    sent.then((reply) => {
      const records = reply as unknown[];
      loads.forEach((load, at) => {
        try {
          load.resolve(decodeRecord(records[at]));
        } catch (error) {
          load.reject(error);
        }
      });
    }, fail);
  }

  async changeSession(id: string, change: SessionChange): Promise<void> {
    if (change.kind === "subscribe") {
      const refused = subscriptionUriRefusal(change.uri);
      if (refused) throw refused;
    }
    const value = change.kind === "logLevel" ? change.level : change.kind === "initialized" ? "" : change.uri;
    const { subscriptions, subscriptionBytes } = SESSION_BOUNDS;
    const outcome = await this.#redis.run(scripts.CHANGE, [id, change.kind, value, subscriptions, subscriptionBytes]);
    if (outcome === -1) throw tooManySubscriptions();
  }

  async deleteSession(id: string): Promise<boolean> {
    return (await this.#redis.run(scripts.DELETE, [id])) === 1;
  }

  async initializedSessions(uri?: string): Promise<readonly InitializedSession[]> {
    return decodeInitialized(await this.#redis.run(scripts.INITIALIZED, uri === undefined ? ["0", ""] : ["1", uri]));
  }

  async subscribers(uri: string): Promise<readonly string[]> {
    return (await this.#redis.run(scripts.SUBSCRIBERS, [uri])) as string[];
  }

  async sessionIds(): Promise<readonly string[]> {
    return (await this.#redis.run(scripts.SESSION_IDS, [])) as string[];
  }
}
