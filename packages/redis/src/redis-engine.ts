import { randomUUID } from "node:crypto";
import {
  type Engine,
  type EngineOwner,
  EngineUnavailable,
  LeaseLost,
  type RunningRequest,
  SESSION_BOUNDS,
  type ServerSignal,
  type SessionChange,
  type SessionLimits,
  type SessionRecord,
  type SessionSignal,
  type StoredEvent,
  subscriptionUriRefusal,
  type TaskChange,
  type TaskLimit,
  type TaskRecord,
  type TaskSignal,
  tooManySubscriptions,
} from "@toolsmith/core/engine";
import type { Redis } from "ioredis";

import { Channels } from "./channels.js";
import { asUnavailable, createClient, lastErrorOf, RECONNECT_MAX_MS, redacted, run } from "./client.js";
import { KEEP_CANCEL, KEEP_CLIENT_LINE, TAKE_CANCELS, TAKE_CLIENT_LINES } from "./client-lines.js";
import { type Eviction, evictionVerdict, readEviction } from "./eviction.js";
import { bounded, DEFAULTS, type RedisEngineOptions, withoutUndefined } from "./options.js";
import { decodeRecord, encodeFixed } from "./records.js";
import * as scripts from "./scripts.js";
import { answerArgs, changeArgs, createArgs, decodeTask } from "./task-records.js";
import * as taskScripts from "./task-scripts.js";

type HandleOp = Extract<ServerSignal, { type: "handle" }>;

// Keys outlive a session's idle time by this much, so the sweep (not Redis's expiry) ends it and tells its followers.
const GRACE_MS = 60_000;
// What a stopped process left running stays this long for another to claim (no client waits longer for its answer).
const RUN_KEEP_MS = 3_600_000;
// Client lines kept for one process: the newest this many, each at most this long (a longer one is only signalled),
// for as long as what it runs is kept for another to claim. Bounded: a client may name a live process's id.
const MAX_CLIENT_LINES = 256;
// Of those, at most this many from one session until the process takes them: one client's flood keeps no more.
const MAX_CLIENT_LINES_PER_SESSION = 16;
const MAX_CLIENT_LINE_CHARS = 256 * 1024;
// Cancellations kept per session (the newest this many: a client fills its own alone), each at most this long (a longer one only
// signalled): what the process running the request takes if it missed the signal.
const MAX_KEPT_CANCELS = 64;
const MAX_CANCEL_LINE_CHARS = 4096;
// Client lines for a process whose lease is not live (lapsed while Redis was down, or it stalled) are kept this long:
// a living process is back and takes them well within it; a name no process has costs a minute at most.
const LAPSED_CLIENT_LINES_MS = 60_000;
// Last-Event-ID as a stream entry id: anything else names no event (and must not reach XRANGE as a range).
const EVENT_ID = /^\d{1,19}-\d{1,19}$/;

/**
 * The engine on Redis, for a server that runs as several processes (or restarts without losing its sessions): any
 * process serves any session, events replay anywhere, signals travel between processes, and a request whose process
 * stopped is given to another. Every call fails with core's `EngineUnavailable` within about `commandTimeoutMs` when
 * Redis cannot answer; the engine reconnects by itself.
 * @example
 * const engine = createRedisEngine({ url: process.env.REDIS_URL ?? "redis://127.0.0.1:6379" });
 * const server = createServer({ name: "notes", version: "1.0.0", engine });
 */
export function createRedisEngine(options: RedisEngineOptions): Engine {
  const settings: Settings = { ...DEFAULTS, ...withoutUndefined(options), url: options.url };
  for (const key of ["leaseMs", "eventsPerSession", "commandTimeoutMs"] as const) {
    const value = settings[key];
    if (!Number.isInteger(value) || value < 1) throw new RangeError(`${key} must be a positive integer, not ${value}`);
  }
  if (typeof options.url !== "string" || !/^rediss?:\/\//i.test(options.url)) {
    throw new TypeError("url must be a redis:// or rediss:// URL");
  }
  return new RedisEngine(settings);
}

type Settings = typeof DEFAULTS & RedisEngineOptions;

/** The clients and names of a started engine. */
interface Open {
  readonly main: Redis;
  readonly subscriber: Redis;
  readonly channels: Channels;
  readonly prefix: string;
  readonly timer: ReturnType<typeof setInterval>;
}

class RedisEngine implements Engine {
  readonly node = randomUUID();
  readonly shared = true;
  readonly #settings: Settings;
  readonly #where: string;
  readonly #broadcastListeners = new Set<(signal: ServerSignal) => void>();
  readonly #orphanListeners = new Set<(request: RunningRequest) => void>();
  readonly #orphanTaskListeners = new Set<(id: string) => void>();
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
  // What this process runs by its own account (request fields, task ids): a fenced write needs it held here, and
  // refused only when another process claimed it (Redis may lose or expire the run:/rt: entries, that is no claim).
  readonly #requestsHere = new Set<string>();
  readonly #tasksHere = new Set<string>();

  constructor(settings: Settings) {
    this.#settings = settings;
    // Two leases and the longest reconnect wait: every living process has renewed by then.
    this.#claimAfterMs = 2 * settings.leaseMs + RECONNECT_MAX_MS;
    this.#where = redacted(settings.url);
  }

  start(server: EngineOwner): Promise<void> {
    if (this.#closed) return Promise.reject(new Error("This Redis engine is closed: make a new one"));
    this.#starting ??= this.#connect(this.#settings.namespace ?? server.name, server).then(
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

  async createSession(record: SessionRecord, limits: SessionLimits): Promise<"created" | "full" | "full-for-caller"> {
    const outcome = await this.#run(scripts.CREATE, [
      record.id,
      encodeFixed(record),
      record.caller ?? "",
      record.initialized ? "1" : "0",
      record.logLevel ?? "",
      bounded(Math.max(1, Math.ceil(limits.idleMs))),
      bounded(limits.max),
      bounded(limits.perCaller),
      GRACE_MS,
    ]);
    if (outcome === "exists") throw new Error(`A session with id ${JSON.stringify(record.id)} already exists`);
    return outcome as "created" | "full" | "full-for-caller";
  }

  async loadSession(id: string): Promise<SessionRecord | undefined> {
    return decodeRecord(await this.#run(scripts.LOAD, [id, GRACE_MS]));
  }

  async changeSession(id: string, change: SessionChange): Promise<void> {
    if (change.kind === "subscribe") {
      const refused = subscriptionUriRefusal(change.uri);
      if (refused) throw refused;
    }
    const value = change.kind === "logLevel" ? change.level : change.kind === "initialized" ? "" : change.uri;
    const { subscriptions, subscriptionBytes } = SESSION_BOUNDS;
    const outcome = await this.#run(scripts.CHANGE, [id, change.kind, value, subscriptions, subscriptionBytes]);
    if (outcome === -1) throw tooManySubscriptions();
  }

  async deleteSession(id: string): Promise<boolean> {
    return (await this.#run(scripts.DELETE, [id])) === 1;
  }

  async subscribers(uri: string): Promise<readonly string[]> {
    return (await this.#run(scripts.SUBSCRIBERS, [uri])) as string[];
  }

  async sessionIds(): Promise<readonly string[]> {
    return (await this.#run(scripts.SESSION_IDS, [])) as string[];
  }

  async append(
    session: string,
    stream: string,
    data: string,
    options?: { readonly running?: string },
  ): Promise<StoredEvent> {
    const request = options?.running;
    const args = [session, stream, data, this.#settings.eventsPerSession];
    // Fenced: written only while this process runs the request and no other process claimed it.
    if (request !== undefined) {
      const field = JSON.stringify([session, request]);
      args.push(this.node, field, this.#requestsHere.has(field) ? "1" : "0");
    }
    const id = await this.#run(scripts.APPEND, args);
    if (id === -1) throw new LeaseLost(`request ${request} of session ${session} is no longer this process's`);
    // A session that ended keeps nothing and tells no one (as the memory engine).
    return { id: typeof id === "string" ? id : "", stream, data };
  }

  async replay(session: string, lastEventId: string): Promise<{ stream: string; events: StoredEvent[] } | undefined> {
    if (!EVENT_ID.test(lastEventId)) return undefined;
    const reply = await this.#run(scripts.REPLAY, [session, lastEventId]);
    if (!Array.isArray(reply)) return undefined;
    const [stream, ...rest] = reply as string[];
    const events: StoredEvent[] = [];
    for (let i = 0; i < rest.length; i += 2) events.push({ id: rest[i]!, stream: stream!, data: rest[i + 1]! });
    return { stream: stream!, events };
  }

  async signal(session: string, signal: SessionSignal): Promise<void> {
    const open = this.#started();
    if (signal.type === "client" && signal.to !== undefined && signal.line.length <= MAX_CLIENT_LINE_CHARS) {
      const entry = JSON.stringify({ session, line: signal.line });
      const signalled = JSON.stringify(signal);
      const args = [
        session,
        signal.to,
        entry,
        signalled,
        RUN_KEEP_MS,
        MAX_CLIENT_LINES,
        MAX_CLIENT_LINES_PER_SESSION,
        LAPSED_CLIENT_LINES_MS,
      ];
      await this.#run(KEEP_CLIENT_LINE, args);
      return;
    }
    if (signal.type === "client" && signal.cancels !== undefined && signal.line.length <= MAX_CANCEL_LINE_CHARS) {
      const args = [session, signal.cancels, signal.line, JSON.stringify(signal), MAX_KEPT_CANCELS];
      await this.#run(KEEP_CANCEL, args);
      return;
    }
    await this.#call(() => open.main.publish(`${open.prefix}c:${session}`, JSON.stringify(signal)));
  }

  async takeCancels(
    running: readonly Pick<RunningRequest, "session" | "request">[],
  ): Promise<readonly { session: string; request: string; line: string }[]> {
    if (running.length === 0) return [];
    const flat = (await this.#run(
      TAKE_CANCELS,
      running.flatMap(({ session, request }) => [session, request]),
    )) as string[];
    const taken: { session: string; request: string; line: string }[] = [];
    for (let i = 0; i + 2 < flat.length; i += 3) {
      taken.push({ session: flat[i] as string, request: flat[i + 1] as string, line: flat[i + 2] as string });
    }
    return taken;
  }

  async takeClientLines(): Promise<readonly { session: string; line: string }[]> {
    const entries = (await this.#run(TAKE_CLIENT_LINES, [this.node])) as string[];
    return entries.map((entry) => JSON.parse(entry) as { session: string; line: string });
  }

  async follow(session: string, listener: (signal: SessionSignal) => void): Promise<() => Promise<void>> {
    const open = this.#started();
    return this.#call(() => open.channels.listen(`${open.prefix}c:${session}`, listener as (m: unknown) => void));
  }

  async broadcast(signal: ServerSignal): Promise<void> {
    const open = this.#started();
    const message = JSON.stringify({ from: this.node, signal });
    if (signal.type === "handle") {
      const as = (op: HandleOp["op"]) => JSON.stringify({ type: "handle", kind: signal.kind, name: signal.name, op });
      await this.#run(scripts.HANDLE_OP, [as(signal.op), message, as("enable"), as("disable")]);
    } else {
      await this.#call(() => open.main.publish(`${open.prefix}bus`, message));
    }
  }

  onBroadcast(listener: (signal: ServerSignal) => void): () => void {
    this.#broadcastListeners.add(listener);
    return () => void this.#broadcastListeners.delete(listener);
  }

  async handleOps(): Promise<readonly HandleOp[]> {
    const open = this.#started();
    const ops = await this.#call(() => open.main.lrange(`${open.prefix}ops`, 0, -1));
    return ops.map((op) => JSON.parse(op) as HandleOp);
  }

  async running(request: RunningRequest): Promise<void> {
    const kept: RunningRequest = { session: request.session, request: request.request, stream: request.stream };
    const field = JSON.stringify([request.session, request.request]);
    await this.#run(scripts.RUNNING, [this.node, this.#settings.leaseMs, field, JSON.stringify(kept), RUN_KEEP_MS]);
    this.#requestsHere.add(field);
  }

  async finished(session: string, request: string): Promise<void> {
    const open = this.#started();
    this.#requestsHere.delete(JSON.stringify([session, request]));
    await this.#call(() => open.main.hdel(`${open.prefix}run:${this.node}`, JSON.stringify([session, request])));
  }

  onOrphan(listener: (request: RunningRequest) => void): () => void {
    this.#orphanListeners.add(listener);
    return () => void this.#orphanListeners.delete(listener);
  }

  async createTask(task: TaskRecord, limit?: TaskLimit): Promise<"created" | "full" | "full-for-caller"> {
    const bound =
      limit === undefined
        ? undefined
        : { caller: limit.caller, perCaller: bounded(limit.perCaller), max: bounded(limit.max) };
    const outcome = await this.#run(taskScripts.CREATE_TASK, createArgs(task, Date.now(), bound));
    if (outcome === "exists") throw new Error(`A task with id ${JSON.stringify(task.id)} already exists`);
    return outcome as "created" | "full" | "full-for-caller";
  }

  async loadTask(id: string): Promise<TaskRecord | undefined> {
    return decodeTask(await this.#run(taskScripts.LOAD_TASK, [id, Date.now()]));
  }

  async changeTask(
    id: string,
    change: TaskChange,
    options?: { readonly running?: boolean },
  ): Promise<TaskRecord | undefined> {
    const fence = options?.running ? [this.node, this.#tasksHere.has(id) ? "1" : "0"] : ["", ""];
    const reply = await this.#run(taskScripts.CHANGE_TASK, [id, Date.now(), ...changeArgs(change), ...fence]);
    if (reply === "lost") throw new LeaseLost(`task ${id} is no longer run by this process`);
    return decodeTask(reply);
  }

  async answerTask(id: string, responses: Readonly<Record<string, unknown>>): Promise<readonly string[]> {
    return (await this.#run(taskScripts.ANSWER_TASK, [id, Date.now(), ...answerArgs(responses)])) as string[];
  }

  async takeAnswers(
    id: string,
  ): Promise<{ readonly task: TaskRecord; readonly answers: Readonly<Record<string, unknown>> } | undefined> {
    const reply = await this.#run(taskScripts.TAKE_ANSWERS, [id, Date.now()]);
    if (!Array.isArray(reply)) return undefined;
    const [task, answers] = reply as [string, string];
    return { task: decodeTask(task) as TaskRecord, answers: JSON.parse(answers) as Record<string, unknown> };
  }

  async followTask(id: string, listener: (signal: TaskSignal) => void): Promise<() => Promise<void>> {
    const open = this.#started();
    return this.#call(() => open.channels.listen(`${open.prefix}tc:${id}`, listener as (m: unknown) => void));
  }

  async taskRunning(id: string): Promise<void> {
    await this.#run(taskScripts.TASK_RUNNING, [this.node, this.#settings.leaseMs, id, RUN_KEEP_MS]);
    this.#tasksHere.add(id);
  }

  async taskFinished(id: string): Promise<void> {
    const open = this.#started();
    this.#tasksHere.delete(id);
    await this.#call(() => open.main.srem(`${open.prefix}rt:${this.node}`, id));
  }

  onOrphanTask(listener: (id: string) => void): () => void {
    this.#orphanTaskListeners.add(listener);
    return () => void this.#orphanTaskListeners.delete(listener);
  }

  onResume(listener: () => void): () => void {
    this.#resumeListeners.add(listener);
    return () => void this.#resumeListeners.delete(listener);
  }

  async #connect(namespace: string, server: EngineOwner): Promise<Open> {
    const { url, commandTimeoutMs, leaseMs } = this.#settings;
    // Encoded, the namespace holds no ":", "{" or "}": it can neither end its hash tag early nor pose as a key type.
    const prefix = `ts:{${encodeURIComponent(namespace)}}:`;
    const { tls } = this.#settings;
    const main = createClient(url, commandTimeoutMs, `toolsmith:${this.node}`, tls);
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
        retryAfterSeconds: this.#settings.retryAfterSeconds,
      });
    } finally {
      clearTimeout(timer);
    }
    // Said once per start, on the server's own log (never the console); a Redis that would evict is refused.
    const verdict = evictionVerdict(eviction as Eviction, this.#where, this.#settings.allowEviction === true);
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
      const claim = this.#orphanListeners.size > 0 && steady ? "1" : "0";
      const claimTasks = this.#orphanTaskListeners.size > 0 && steady ? "1" : "0";
      const [requests, tasks] = (await run(open.main, scripts.TICK, open.prefix, [
        this.node,
        this.#settings.leaseMs,
        claim,
        RUN_KEEP_MS,
        claimTasks,
      ])) as [string[], string[]];
      this.#steadySince ??= Date.now();
      for (const text of requests) tell(this.#orphanListeners, JSON.parse(text) as RunningRequest);
      for (const id of tasks) tell(this.#orphanTaskListeners, id);
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
        if (this.#closed) return;
        for (const listener of [...this.#resumeListeners]) {
          try {
            listener();
          } catch {
            // A failing listener is its owner's bug; the others still hear it.
          }
        }
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
    for (const listener of [...this.#broadcastListeners]) {
      try {
        listener(signal);
      } catch {
        // A failing listener is its owner's bug; the others still hear the signal.
      }
    }
  }

  #started(): Open {
    if (this.#closed) throw new Error("This Redis engine is closed: make a new one");
    if (!this.#open) throw new Error("Start the Redis engine first (engine.start, which server.startEngine calls)");
    return this.#open;
  }

  #run(script: scripts.Script, args: readonly (string | number)[]): Promise<unknown> {
    const open = this.#started();
    return this.#call(() => run(open.main, script, open.prefix, args));
  }

  async #call<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      throw asUnavailable(error, this.#where, this.#settings.retryAfterSeconds);
    }
  }
}

/** Give `value` to each listener (a listener's failure is its owner's bug; what it was given was claimed regardless). */
function tell<T>(listeners: ReadonlySet<(value: T) => void>, value: T): void {
  for (const listener of [...listeners]) {
    try {
      listener(value);
    } catch {
      // The listener's bug.
    }
  }
}
