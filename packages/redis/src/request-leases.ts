import type { RequestLeases, RunningRequest } from "@toolsmith/core/engine";
import { type RedisLifecycle, RUN_KEEP_MS } from "./lifecycle.js";
import * as scripts from "./scripts.js";

/** The field that names a running request (in `run:<node>`, and in a fenced append). */
export function requestField(session: string, request: string): string {
  return JSON.stringify([session, request]);
}

/**
 * The Redis engine's `RequestLeases`: the requests this process runs, under its lease (`run:<node>`), claimed by
 * another process's tick once the lease lapsed.
 */
export class RedisRequestLeases implements RequestLeases {
  readonly #redis: RedisLifecycle;
  // What this process runs by its own account (request fields): a fenced append needs it held here, and refused only
  // when another process claimed it (Redis may lose or expire the run: entries, that is no claim).
  readonly #here = new Set<string>();

  constructor(redis: RedisLifecycle) {
    this.#redis = redis;
  }

  async running(request: RunningRequest): Promise<void> {
    const kept: RunningRequest = { session: request.session, request: request.request, stream: request.stream };
    const field = requestField(request.session, request.request);
    const { node, settings } = this.#redis;
    await this.#redis.run(scripts.RUNNING, [node, settings.leaseMs, field, JSON.stringify(kept), RUN_KEEP_MS]);
    this.#here.add(field);
  }

  async finished(session: string, request: string): Promise<void> {
    const open = this.#redis.started();
    this.#here.delete(requestField(session, request));
    await this.#redis.call(() =>
      open.main.hdel(`${open.prefix}run:${this.#redis.node}`, requestField(session, request)),
    );
  }

  onOrphan(listener: (request: RunningRequest) => void): () => void {
    this.#redis.orphans.add(listener);
    return () => void this.#redis.orphans.delete(listener);
  }

  /** Whether this process holds the request by its own account. */
  holds(field: string): boolean {
    return this.#here.has(field);
  }
}
