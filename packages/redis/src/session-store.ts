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
import { decodeInitialized, encodeFixed, encodePrincipal, type Fixed, recordOf } from "./records.js";
import * as scripts from "./session-scripts.js";

// Keys outlive a session's idle time by this much, so the sweep (not Redis's expiry) ends it and tells its followers.
const GRACE_MS = 60_000;
// While a load script is out, the loads asked for wait for its answer and then go as one script, at most this many.
const MOST_LOADS = 128;
// The fixed parts kept in the process, at most this many (the oldest kept goes first).
const MOST_FIXED = 4096;

interface Load {
  readonly id: string;
  readonly resolve: (record: SessionRecord | undefined | Promise<SessionRecord | undefined>) => void;
  readonly reject: (error: unknown) => void;
}

/** The Redis engine's `SessionStore`: each session a hash, the limits counted in one script with the create. */
export class RedisSessionStore implements SessionStore {
  readonly #redis: RedisLifecycle;
  // The loads asked for while a script was out: sent when it is answered, one write and one reply for all.
  #loads: Load[] = [];
  // Load scripts sent and not yet answered (or failed).
  #out = 0;
  // What of each session never changes after initialize, as last read or written here: a load then reads only its
  // state (initialized, log level) and whether it lives, which Redis still answers on every load.
  readonly #fixed = new Map<string, Fixed>();

  constructor(redis: RedisLifecycle) {
    this.#redis = redis;
  }

  async createSession(record: SessionRecord, limits: SessionLimits): Promise<"created" | "full" | "full-for-caller"> {
    const fixed = encodeFixed(record);
    const outcome = await this.#redis.run(scripts.CREATE, [
      record.id,
      fixed,
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
    // As a load would read it back.
    if (outcome === "created") this.#keep(record.id, JSON.parse(fixed) as Fixed);
    return outcome as "created" | "full" | "full-for-caller";
  }

  loadSession(id: string): Promise<SessionRecord | undefined> {
    return new Promise((resolve, reject) => {
      const load = { id, resolve, reject };
      // Nothing out: at once. Else with the others asked for meanwhile, when the script out is answered.
      if (this.#out === 0) this.#send([load]);
      else {
        this.#loads.push(load);
        if (this.#loads.length >= MOST_LOADS) this.#flush();
      }
    });
  }

  #flush(): void {
    const loads = this.#loads;
    if (loads.length === 0) return;
    this.#loads = [];
    this.#send(loads);
  }

  #keep(id: string, fixed: Fixed): void {
    if (this.#fixed.size >= MOST_FIXED && !this.#fixed.has(id)) {
      this.#fixed.delete(this.#fixed.keys().next().value as string);
    }
    this.#fixed.set(id, fixed);
  }

  // Each load as one would run alone (the script takes them in order). Those whose fixed part is not kept here go
  // first and get it. Redis's failure is each one's, and that of the loads waiting for it, which it would meet too:
  // every load fails within the command timeout.
  #send(given: readonly Load[]): void {
    const fail = (error: unknown) => {
      for (const load of given) load.reject(error);
    };
    const known = this.#fixed;
    const wanting = given.filter((load) => !known.has(load.id));
    const loads = wanting.length === 0 ? given : [...wanting, ...given.filter((load) => known.has(load.id))];
    let sent: Promise<unknown>;
    try {
      sent = this.#redis.run(scripts.LOAD, [GRACE_MS, wanting.length, ...loads.map((load) => load.id)]);
    } catch (error) {
      fail(error);
      return;
    }
    this.#out++;
    sent.then(
      (reply) => {
        this.#out--;
        this.#flush();
        const answers = reply as unknown[];
        loads.forEach((load, at) => {
          try {
            const answer = answers[at];
            const fixed = typeof answer === "string" ? known.get(load.id) : undefined;
            if (fixed !== undefined) load.resolve(recordOf(fixed, answer as string));
            // Let go of here since it was sent (this process ended it, or kept too many others): read again.
            else if (typeof answer === "string") load.resolve(this.loadSession(load.id));
            else load.resolve(this.#read(load.id, answer));
          } catch (error) {
            load.reject(error);
          }
        });
      },
      (error: unknown) => {
        this.#out--;
        const waiting = this.#loads;
        this.#loads = [];
        fail(error);
        for (const load of waiting) load.reject(error);
      },
    );
  }

  // A load's answer with its fixed part ([fixed JSON, state]), kept from now on; else (false) it is not live.
  #read(id: string, answer: unknown): SessionRecord | undefined {
    if (!Array.isArray(answer)) {
      this.#fixed.delete(id);
      return undefined;
    }
    const [json, state] = answer as [string, string];
    const fixed = JSON.parse(json) as Fixed;
    this.#keep(id, fixed);
    return recordOf(fixed, state);
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
    this.#fixed.delete(id);
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
