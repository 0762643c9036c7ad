import { McpError } from "../errors.js";
import type { Middleware, Operation } from "../middleware.js";
import { principalOf } from "./caller.js";

export interface RateLimitOptions {
  /** Tokens a caller's bucket holds: the burst (default 10). */
  capacity?: number;
  /** Tokens added per second (default 1). */
  perSecond?: number;
  /**
   * Which operations cost a token (default: every call, read and get; lists, completions and the retries of a
   * 2026-07-28 input_required round are free).
   */
  costs?: (operation: Operation) => number;
  /** Who a bucket belongs to (default: the authenticated subject; every unauthenticated caller shares one bucket). */
  key?: (operation: Operation) => string;
  /** Buckets kept at most; the least recently used go first (default 10,000). */
  maxCallers?: number;
  now?: () => number;
}

/** The JSON-RPC error of a refused operation: implementation-defined range. */
export const RATE_LIMITED = -32001;

/**
 * A token bucket per caller: over its rate, an operation is refused with -32001 and `data.retryAfterMs`.
 * @example
 * server.use(rateLimit({ capacity: 5, perSecond: 0.5 }));
 */
export function rateLimit(options: RateLimitOptions = {}): Middleware {
  const capacity = options.capacity ?? 10;
  const perSecond = options.perSecond ?? 1;
  const maxCallers = options.maxCallers ?? 10_000;
  const now = options.now ?? (() => Date.now());
  const costs =
    options.costs ??
    ((operation) =>
      operation.kind === "list" || operation.kind === "complete" || operation.params.requestState !== undefined
        ? 0
        : 1);
  const keyOf = options.key ?? ((operation) => principalOf(operation.ctx));
  const buckets = new Map<string, { tokens: number; at: number }>();
  return (operation, next) => {
    const cost = costs(operation);
    if (cost <= 0) return next();
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
