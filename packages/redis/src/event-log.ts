import { type EventLog, LeaseLost, type StoredEvent } from "@toolsmith/core/engine";
import type { RedisLifecycle } from "./lifecycle.js";
import { type RedisRequestLeases, requestField } from "./request-leases.js";
import * as scripts from "./scripts.js";

// Last-Event-ID as a stream entry id: anything else names no event (and must not reach XRANGE as a range).
const EVENT_ID = /^\d{1,19}-\d{1,19}$/;

/** The Redis engine's `EventLog`: a session's events in a capped Redis Stream, appended and signalled in one script. */
export class RedisEventLog implements EventLog {
  readonly #redis: RedisLifecycle;
  readonly #leases: RedisRequestLeases;

  constructor(redis: RedisLifecycle, leases: RedisRequestLeases) {
    this.#redis = redis;
    this.#leases = leases;
  }

  async append(
    session: string,
    stream: string,
    data: string,
    options?: { readonly running?: string },
  ): Promise<StoredEvent> {
    const request = options?.running;
    const args = [session, stream, data, this.#redis.settings.eventsPerSession];
    // Fenced: written only while this process runs the request and no other process claimed it.
    if (request !== undefined) {
      const field = requestField(session, request);
      args.push(this.#redis.node, field, this.#leases.holds(field) ? "1" : "0");
    }
    const id = await this.#redis.run(scripts.APPEND, args);
    if (id === -1) throw new LeaseLost(`request ${request} of session ${session} is no longer this process's`);
    // A session that ended keeps nothing and tells no one (as the memory engine).
    return { id: typeof id === "string" ? id : "", stream, data };
  }

  async replay(session: string, lastEventId: string): Promise<{ stream: string; events: StoredEvent[] } | undefined> {
    if (!EVENT_ID.test(lastEventId)) return undefined;
    const reply = await this.#redis.run(scripts.REPLAY, [session, lastEventId]);
    if (!Array.isArray(reply)) return undefined;
    const [stream, ...rest] = reply as string[];
    const events: StoredEvent[] = [];
    for (let i = 0; i < rest.length; i += 2) events.push({ id: rest[i]!, stream: stream!, data: rest[i + 1]! });
    return { stream: stream!, events };
  }
}
