import type { ConnectionOptions } from "node:tls";
import { DEFAULT_RETRY_AFTER_SECONDS, KEY_VALUE_BOUNDS, RECORD_BOUNDS } from "@toolsmith/core/engine";

/** Options of `createRedisEngine`. */
export interface RedisEngineOptions {
  /** `redis://[[user]:password@]host[:port][/db]`, or `rediss://…` for TLS. */
  readonly url: string;
  /** What this server's keys are kept under (`ts:{<namespace>}:…`); default the server's name. */
  readonly namespace?: string;
  /** How long a process's lease on its running requests lasts unrenewed (renewed every third of it); default 10 s. */
  readonly leaseMs?: number;
  /** Events kept per session for resumption (default 512): older ones are dropped, oldest first. */
  readonly eventsPerSession?: number;
  /** How long a call may wait for Redis before it fails with `EngineUnavailable`; default 2000 ms. */
  readonly commandTimeoutMs?: number;
  /** What `EngineUnavailable` tells clients to wait (a 503's `Retry-After`); default 2 s. */
  readonly retryAfterSeconds?: number;
  /** TLS options for a `rediss://` URL beyond the system's CAs (e.g. `{ ca }` for a private CA). */
  readonly tls?: ConnectionOptions;
  /**
   * Start even when Redis may evict the engine's keys when full (a `maxmemory-policy` other than `noeviction` with a
   * `maxmemory`): said at `warning` on the server's log instead of refusing to start. Default false.
   */
  readonly allowEviction?: boolean;
  /** Live values kept at most (default 100 000), and as many counters apart: one more throws `EngineUnavailable`. */
  readonly maxValues?: number;
  /** Live records of the `RecordStore` kept at most (default 1 000 000): a new one throws `EngineUnavailable`. */
  readonly maxRecords?: number;
}

/** What an option left out is. */
export const DEFAULTS = {
  leaseMs: 10_000,
  eventsPerSession: 512,
  commandTimeoutMs: 2000,
  retryAfterSeconds: DEFAULT_RETRY_AFTER_SECONDS,
  maxValues: KEY_VALUE_BOUNDS.maxValues as number,
  maxRecords: RECORD_BOUNDS.maxRecords as number,
};

/** The options as the engine runs with them: every default filled in. */
export type Settings = typeof DEFAULTS & RedisEngineOptions;

/** The options given (one set to undefined is left out). */
export function withoutUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}

// Lua reads numbers as doubles: "unbounded" (Infinity) becomes a century, exact in a double and to Redis.
const CENTURY_MS = 100 * 365 * 24 * 3600 * 1000;
/** A number Lua and Redis take exactly. */
export function bounded(value: number): number {
  return Number.isFinite(value) ? Math.min(value, CENTURY_MS) : CENTURY_MS;
}
