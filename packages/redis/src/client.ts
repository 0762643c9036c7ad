import type { ConnectionOptions } from "node:tls";
import { EngineUnavailable } from "@toolsmith/core/engine";
import { Redis, type RedisOptions } from "ioredis";
import { BatchedConnector, GuardedConnector } from "./connector.js";
import type { Script } from "./scripts.js";

// Redis's answers that mean "not now" rather than "wrong": the engine is unavailable until they pass.
const TRANSIENT = /^(LOADING|BUSY|MASTERDOWN|TRYAGAIN|CLUSTERDOWN|READONLY|NOAUTH|WRONGPASS|NOPERM|OOM|NOREPLICAS)\b/;

/** The URL with its password (and user) hidden, for messages. */
export function redacted(url: string): string {
  // Up to the last "@": a password may hold "@" or "/" however carelessly it was written.
  return url.replace(/^(rediss?:\/\/)[^?#]*@/i, "$1***@");
}

/** Whether an error from the client means Redis could not serve the call (down, restarting, too slow, refused us). */
export function isUnavailability(error: unknown): boolean {
  if (!(error instanceof Error)) return true;
  return error.name !== "ReplyError" || TRANSIENT.test(error.message);
}

/** `error` as core's EngineUnavailable when it is one (a script's own error goes through as it is). */
export function asUnavailable(error: unknown, where: string, retryAfterSeconds: number): unknown {
  if (error instanceof EngineUnavailable || !isUnavailability(error)) return error;
  const reason = error instanceof Error ? error.message : String(error);
  return new EngineUnavailable(`Redis at ${where} is unavailable: ${reason}`, { cause: error, retryAfterSeconds });
}

/** The longest a client waits between two tries to reconnect. */
export const RECONNECT_MAX_MS = 1000;

/**
 * A client that never waits for Redis: no offline queue (a call while disconnected fails at once), a command
 * timeout, one retry at most; it reconnects by itself, soon (at most a second apart). `batched`: the commands one turn
 * of the event loop makes go out in one write (for a connection that never blocks: no subscriber, no blocking read).
 */
export function createClient(
  url: string,
  commandTimeoutMs: number,
  name: string,
  tls?: ConnectionOptions,
  batched = false,
): Redis {
  const options: RedisOptions = {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: commandTimeoutMs,
    connectTimeout: commandTimeoutMs,
    retryStrategy: (times) => Math.min(times * 100, RECONNECT_MAX_MS),
    // RESP2: the long-standing path for a subscriber connection and for scripts.
    protocol: 2,
    connectionName: name,
    disableClientInfo: true,
    Connector: batched ? BatchedConnector : GuardedConnector,
    // Only for rediss://, where ioredis turns TLS on; extra options (a private CA) join it.
    ...(tls !== undefined && /^rediss:/i.test(url) ? { tls } : {}),
  };
  // ioredis turns TLS on for a lower-case "rediss://" only.
  const client = new Redis(
    url.replace(/^rediss?:/i, (scheme) => scheme.toLowerCase()),
    options,
  );
  // Every failure reaches the call that met it; without a listener the client would log to the console. The last
  // one is kept: a failed connect says only "Connection is closed", where the reason was e.g. WRONGPASS.
  client.on("error", (error: Error) => lastErrors.set(client, error));
  client.on("ready", () => lastErrors.delete(client));
  return client;
}

const lastErrors = new WeakMap<Redis, Error>();

/** What the client last met while connecting (since it was last ready), if anything. */
export function lastErrorOf(client: Redis): Error | undefined {
  return lastErrors.get(client);
}

/** Run a script in one round trip (EVALSHA, or EVAL when Redis lost its script cache). */
export function run(
  client: Redis,
  script: Script,
  prefix: string,
  args: readonly (string | number)[],
): Promise<unknown> {
  const argv = [`${prefix}sessions`, prefix, ...args];
  // A promise chain, not an async function: this is on every engine call's path.
  return client.evalsha(script.sha, 1, ...argv).catch((error: unknown) => {
    if (!(error instanceof Error) || !error.message.startsWith("NOSCRIPT")) throw error;
    return client.eval(script.lua, 1, ...argv);
  });
}
