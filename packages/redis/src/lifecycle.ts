import { randomUUID } from "node:crypto";
import {
  type EngineLifecycle,
  type EngineOwner,
  EngineUnavailable,
  type RunningRequest,
  type ServerSignal,
} from "@toolsmith/core/engine";
import type { Redis } from "ioredis";
import { Channels } from "./channels.js";
import { asUnavailable, createClient, lastErrorOf, RECONNECT_MAX_MS, redacted, run } from "./client.js";
import { type Eviction, evictionVerdict, readEviction } from "./eviction.js";
import type { Settings } from "./options.js";
import * as scripts from "./scripts.js";

// What a stopped process left running stays this long for another to claim (no client waits longer for its answer).
export const RUN_KEEP_MS = 3_600_000;

/** The clients and names of a started engine. */
export interface Open {
  readonly main: Redis;
  readonly subscriber: Redis;
  readonly channels: Channels;
  readonly prefix: string;
  readonly timer: ReturnType<typeof setInterval>;
}

/**
 * The Redis engine's `EngineLifecycle`, and the store every other role reaches through it: two clients (commands, and
 * pub/sub), this process's lease renewed by a tick that also ends expired sessions and claims what stopped
 * processes left (for the listeners `RequestLeases` and `TaskStore` add), the bus heard (for `ServerBus`'s), and a
 * resume told once both clients are back after a loss.
 */
export class RedisLifecycle implements EngineLifecycle {
  readonly node = randomUUID();
  readonly shared = true;
  readonly settings: Settings;
  /** Hear the requests and tasks this process claims of stopped ones, and the other processes' broadcasts. */
  readonly orphans = new Set<(request: RunningRequest) => void>();
  readonly orphanTasks = new Set<(id: string) => void>();
  readonly broadcasts = new Set<(signal: ServerSignal) => void>();
  readonly #where: string;
  readonly #resumeListeners = new Set<() => void>();
  // A connection closed since the engine started (or last resumed): its next ready is a resume.
  #lost = false;
  #starting: Promise<Open> | undefined;
  #open: Open | undefined;
  #closed = false;
  #ticking = false;
  // Since when this process has reached Redis without a break (undefined while it cannot).
  #steadySince: number | undefined;
  readonly #claimAfterMs: number;

  constructor(settings: Settings) {
    this.settings = settings;
    // Two leases and the longest reconnect wait: every living process has renewed by then.
    this.#claimAfterMs = 2 * settings.leaseMs + RECONNECT_MAX_MS;
    this.#where = redacted(settings.url);
  }

  start(server: EngineOwner): Promise<void> {
    if (this.#closed) return Promise.reject(new Error("This Redis engine is closed: make a new one"));
    this.#starting ??= this.#connect(this.settings.namespace ?? server.name, server).then(
      (open) => {
        this.#open = open;
        return open;
      },
      (error) => {
        this.#starting = undefined;
        throw error;
      },
    );
    return this.#starting.then(() => undefined);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const open = this.#open ?? (await this.#starting?.catch(() => undefined));
    if (!open) return;
    clearInterval(open.timer);
    open.channels.clear();
    // Our lease ends now, so another process answers what we left running without waiting for it to lapse.
    await open.main.del(`${open.prefix}node:${this.node}`).catch(() => {});
    open.main.disconnect();
    open.subscriber.disconnect();
  }

  onResume(listener: () => void): () => void {
    this.#resumeListeners.add(listener);
    return () => void this.#resumeListeners.delete(listener);
  }

  /** The clients of the started engine (a plain Error before `start` or after `close`). */
  started(): Open {
    if (this.#closed) throw new Error("This Redis engine is closed: make a new one");
    if (!this.#open) throw new Error("Start the Redis engine first (engine.start, which server.startEngine calls)");
    return this.#open;
  }

  /** Run a script in one round trip; Redis out of reach is `EngineUnavailable`. */
  run(script: scripts.Script, args: readonly (string | number)[]): Promise<unknown> {
    const open = this.started();
    return this.call(() => run(open.main, script, open.prefix, args));
  }

  /** Make a call to Redis; Redis out of reach is `EngineUnavailable`. */
  call<T>(call: () => Promise<T>): Promise<T> {
    // A promise chain, not an async function: this is on every engine call's path.
    try {
      return call().catch(this.#unavailable);
    } catch (error) {
      return Promise.reject(asUnavailable(error, this.#where, this.settings.retryAfterSeconds));
    }
  }

  // What a failed call throws: Redis out of reach as `EngineUnavailable`, anything else as it is.
  readonly #unavailable = (error: unknown): never => {
    throw asUnavailable(error, this.#where, this.settings.retryAfterSeconds);
  };

  async #connect(namespace: string, server: EngineOwner): Promise<Open> {
    const { url, commandTimeoutMs, leaseMs } = this.settings;
    // Encoded, the namespace holds no ":", "{" or "}": it can neither end its hash tag early nor pose as a key type.
    const prefix = `ts:{${encodeURIComponent(namespace)}}:`;
    const { tls } = this.settings;
    // Only scripts and plain commands on this one: what a turn of the event loop asks goes out in one write.
    const main = createClient(url, commandTimeoutMs, `toolsmith:${this.node}`, tls, true);
    const subscriber = createClient(url, commandTimeoutMs, `toolsmith:${this.node}:bus`, tls);
    const channels = new Channels(subscriber);
    let timer: ReturnType<typeof setTimeout> | undefined;
    let eviction: Eviction | undefined;
    // Each step has its own timeout, but a paused Redis can make them add up: the start as a whole gets one.
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${commandTimeoutMs} ms`)), commandTimeoutMs);
    });
    try {
      await Promise.race([
        late,
        (async () => {
          await Promise.all([main.connect(), subscriber.connect()]);
          eviction = await readEviction(main);
          await channels.listen(`${prefix}bus`, (message) => this.#heard(message));
          await run(main, scripts.TICK, prefix, [this.node, leaseMs, "0", RUN_KEEP_MS, "0"]);
        })(),
      ]);
    } catch (error) {
      main.disconnect();
      subscriber.disconnect();
      const met = lastErrorOf(main) ?? lastErrorOf(subscriber);
      const reason = met?.message ?? (error instanceof Error ? error.message : String(error));
      throw new EngineUnavailable(`Could not start the Redis engine at ${this.#where}: ${reason}`, {
        cause: error,
        retryAfterSeconds: this.settings.retryAfterSeconds,
      });
    } finally {
      clearTimeout(timer);
    }
    // Said once per start, on the server's own log (never the console); a Redis that would evict is refused.
    const verdict = evictionVerdict(eviction as Eviction, this.#where, this.settings.allowEviction === true);
    if (verdict.kind === "refuse") {
      await main.del(`${prefix}node:${this.node}`).catch(() => {});
      main.disconnect();
      subscriber.disconnect();
      throw new Error(verdict.message);
    }
    if (verdict.kind === "warn") server.log?.({ level: "warning", message: verdict.message });
    for (const client of [main, subscriber]) {
      client.on("close", () => {
        this.#lost = true;
      });
      client.on("ready", () => this.#ready());
    }
    const ticker = setInterval(() => void this.#tick(), Math.max(1, Math.floor(leaseMs / 3)));
    // Housekeeping must not keep a finished process alive.
    ticker.unref();
    main.on("close", () => {
      this.#steadySince = undefined;
    });
    this.#steadySince = Date.now();
    return { main, subscriber, channels, prefix, timer: ticker };
  }

  /** Renew the lease, end expired sessions, claim orphans (when someone here hears them). Failures wait for the next. */
  async #tick(): Promise<void> {
    const open = this.#open;
    if (!open || this.#closed || this.#ticking) return;
    this.#ticking = true;
    try {
      // Back from a break (Redis restarted, say), every living process gets time to renew its lease before this one
      // takes a lapsed one's requests: their leases lapsed while Redis was away, not because they stopped.
      const steady = this.#steadySince !== undefined && Date.now() - this.#steadySince >= this.#claimAfterMs;
      const claim = this.orphans.size > 0 && steady ? "1" : "0";
      const claimTasks = this.orphanTasks.size > 0 && steady ? "1" : "0";
      const [requests, tasks] = (await run(open.main, scripts.TICK, open.prefix, [
        this.node,
        this.settings.leaseMs,
        claim,
        RUN_KEEP_MS,
        claimTasks,
      ])) as [string[], string[]];
      this.#steadySince ??= Date.now();
      for (const text of requests) tell(this.orphans, JSON.parse(text) as RunningRequest);
      for (const id of tasks) tell(this.orphanTasks, id);
      await open.channels.tidy();
    } catch {
      // Redis away: the next tick tries again.
      this.#steadySince = undefined;
    } finally {
      this.#ticking = false;
    }
  }

  /** Once both connections are ready again after a loss, and the bus re-subscribed, the engine has resumed. */
  #ready(): void {
    const open = this.#open;
    if (!open || this.#closed || !this.#lost) return;
    if (open.main.status !== "ready" || open.subscriber.status !== "ready") return;
    this.#lost = false;
    // Answered after ioredis's own re-subscription on that connection: the bus is heard again from here on.
    Promise.all([open.subscriber.subscribe(`${open.prefix}bus`), open.main.ping()]).then(
      () => {
        if (!this.#closed) tell(this.#resumeListeners, undefined);
      },
      () => {
        // Lost again before it was sure: the next ready tries again.
        this.#lost = true;
      },
    );
  }

  #heard(message: unknown): void {
    const { from, signal } = message as { from?: unknown; signal?: ServerSignal };
    if (from === this.node || typeof signal !== "object" || signal === null) return;
    tell(this.broadcasts, signal);
  }
}

/** Give `value` to each listener (a listener's failure is its owner's bug; the others still hear it). */
function tell<T>(listeners: ReadonlySet<(value: T) => void>, value: T): void {
  for (const listener of [...listeners]) {
    try {
      listener(value);
    } catch {
      // The listener's bug.
    }
  }
}
