import type { Round } from "../../context/ask.js";
import { McpError } from "../../wire/errors.js";
import { ErrorCode } from "../../wire/json-rpc.js";
import type { Middleware, Operation } from "../compose.js";
import { callerKeyOf } from "./caller.js";

export interface RateLimitOptions {
  /** Tokens a caller's bucket holds: the burst (default 10). */
  capacity?: number;
  /** Tokens added per second (default 1). */
  perSecond?: number;
  /**
   * What an operation costs (default: every call, read and get 1; lists and completions 0). A 2026-07-28 retry of a
   * verified `input_required` round (`operation.round`) is free the first time its round is redeemed, whatever this
   * says: its request paid on its first call.
   */
  costs?: (operation: Operation) => number;
  /**
   * Who a bucket belongs to (default: the request's caller key, `ctx.caller`: the authenticated subject, else the
   * client's network address; one shared bucket where neither is known, as on stdio).
   */
  key?: (operation: Operation) => string;
  /** Buckets kept at most; the least recently used go first (default 10,000). */
  maxCallers?: number;
  /** Rounds of one request that are free (default 10): a handler that keeps asking pays for each round past these. */
  freeRounds?: number;
  /**
   * Redeemed rounds remembered at most, each until its `requestState` expires (default 100,000). With no room left,
   * a retry is charged like a fresh call: a round is never free twice.
   */
  maxRounds?: number;
  now?: () => number;
}

/** The JSON-RPC error of a refused operation: `ErrorCode.RateLimited` (-32010). */
export const RATE_LIMITED = ErrorCode.RateLimited;

// A replay that passed the seal check just before its state expired may reach the limiter just after.
const GRACE_MS = 60_000;

/** The rounds already redeemed for free, until their states expire: bounded, never forgetting one still valid. */
class Redeemed {
  readonly #ids = new Map<string, number>();
  readonly #max: number;
  #nextSweep = 0;

  constructor(max: number) {
    this.#max = max;
  }

  /** True the first time `round` is seen (and remembered); false for a replay, or when there is no room. */
  first(round: Round): boolean {
    if (this.#ids.has(round.id)) return false;
    if (this.#ids.size >= this.#max && !this.#sweep()) return false;
    this.#ids.set(round.id, round.expiresAt + GRACE_MS);
    return true;
  }

  // Expiries are wall-clock times the core sealed, so they are compared with Date.now(), not the limiter's clock.
  #sweep(): boolean {
    const now = Date.now();
    if (now < this.#nextSweep) return false;
    let soonest = Number.POSITIVE_INFINITY;
    for (const [id, until] of this.#ids) {
      if (until < now) this.#ids.delete(id);
      else soonest = Math.min(soonest, until);
    }
    this.#nextSweep = soonest;
    return this.#ids.size < this.#max;
  }
}

/**
 * A token bucket per caller: over its rate, an operation is refused with -32010 (`ErrorCode.RateLimited`) and `data.retryAfterMs`. A request
 * that takes several 2026-07-28 `input_required` rounds costs one token: each verified round's first retry is free,
 * a replay of its `requestState` is charged like a fresh call. Buckets and redeemed rounds live in this middleware
 * instance: shared by every connection of the process, per process when several serve one endpoint.
 * @example
 * ```ts source="examples/middleware.ts#rateLimit"
 * server.use(rateLimit({ capacity: 5, perSecond: 0.5 }));
 * ```
 */
export function rateLimit(options: RateLimitOptions = {}): Middleware {
  const capacity = options.capacity ?? 10;
  const perSecond = options.perSecond ?? 1;
  const maxCallers = options.maxCallers ?? 10_000;
  const freeRounds = options.freeRounds ?? 10;
  const now = options.now ?? (() => Date.now());
  const costs = options.costs ?? ((operation) => (operation.kind === "list" || operation.kind === "complete" ? 0 : 1));
  const keyOf = options.key ?? ((operation) => callerKeyOf(operation.ctx));
  const buckets = new Map<string, { tokens: number; at: number }>();
  const redeemed = new Redeemed(options.maxRounds ?? 100_000);
  return (operation, next) => {
    const cost = costs(operation);
    if (cost <= 0) return next();
    // Only a round the connection verified counts, never a requestState as sent.
    const round = operation.round;
    if (round !== undefined && round.number <= freeRounds && redeemed.first(round)) return next();
    const key = keyOf(operation);
    const at = now();
    const previous = buckets.get(key);
    const tokens = previous ? Math.min(capacity, previous.tokens + ((at - previous.at) / 1000) * perSecond) : capacity;
    // Re-inserted on every use: the Map's order is least recently used first.
    buckets.delete(key);
    if (buckets.size >= maxCallers) buckets.delete(buckets.keys().next().value as string);
    if (tokens < cost) {
      buckets.set(key, { tokens, at });
      const retryAfterMs = Math.ceil(((cost - tokens) / perSecond) * 1000);
      throw new McpError(RATE_LIMITED, `Rate limit exceeded for ${key}; retry in ${retryAfterMs} ms`, { retryAfterMs });
    }
    buckets.set(key, { tokens: tokens - cost, at });
    return next();
  };
}
