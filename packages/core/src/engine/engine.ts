import type { LogLevel } from "../protocol/log-levels.js";
import type { ProtocolVersion } from "../protocol/versions.js";
import type { MaybePromise } from "../wire/maybe.js";
import type { Implementation } from "../wire/types.js";

// The engine: the state that must outlive one process. The in-memory engine (the default) answers synchronously,
// so a server without a configured engine makes no promise for it; a shared one (@toolsmith/redis) answers later.
// Every method that reaches a shared store rejects with `EngineUnavailable` within a bounded time when it cannot.

/** A principal as the engine keeps it: who the caller is and what it may do, never a credential (no token). */
export interface StoredPrincipal {
  readonly subject: string;
  readonly scopes: readonly string[];
  readonly clientId?: string;
}

/**
 * One handshake-era session: what `initialize` negotiated and what the client set since; bounded in bytes (the
 * client's info and capabilities as `SESSION_BOUNDS` keeps them). Its resource subscriptions are kept beside it,
 * never in it: loading a session costs the same however much it subscribed to.
 */
export interface SessionRecord {
  readonly id: string;
  /** The principal it is bound to; undefined for a session opened without authentication (its id alone). */
  readonly principal: StoredPrincipal | undefined;
  /** What keys the per-caller session limit (a subject, else an address), when known. */
  readonly caller: string | undefined;
  readonly version: ProtocolVersion;
  readonly clientInfo: Implementation;
  readonly clientCapabilities: Readonly<Record<string, unknown>>;
  /** True once `notifications/initialized` came. */
  readonly initialized: boolean;
  /** `logging/setLevel`'s level. */
  readonly logLevel: LogLevel | undefined;
}

/** What a session's client changed after `initialize`. */
export type SessionChange =
  | { readonly kind: "initialized" }
  | { readonly kind: "logLevel"; readonly level: LogLevel }
  | { readonly kind: "subscribe"; readonly uri: string }
  | { readonly kind: "unsubscribe"; readonly uri: string };

/** Bounds on sessions: in all, per caller, and how long one may go unused. */
export interface SessionLimits {
  readonly max: number;
  readonly perCaller: number;
  readonly idleMs: number;
}

/** One server-sent event of a session, as kept for resumption. */
export interface StoredEvent {
  /** Unique within its session across every process; what `Last-Event-ID` names. */
  readonly id: string;
  /** The stream it belongs to: `get` (the session's GET stream) or a POST's stream key. */
  readonly stream: string;
  /** The JSON-RPC line; empty for a priming event. */
  readonly data: string;
}

/** What travels on a session's channel to the processes following it. */
export type SessionSignal =
  /** An event was appended (by any process): whoever holds that stream live writes it. */
  | { readonly type: "event"; readonly event: StoredEvent }
  /**
   * A client message for whichever process it concerns: its answer to a server request, or a cancellation. With `to`
   * (the process that made the request it answers), the engine also keeps it for that process until it takes it
   * (`takeClientLines`): a signal missed while its subscription was down is not lost.
   */
  | {
      readonly type: "client";
      readonly line: string;
      readonly from: string;
      readonly to?: string;
      /**
       * A cancellation's request (its id's JSON text): the engine also keeps the line with the session (bounded, until
       * the session ends) for whichever process runs that request to take (`takeCancels`) if it missed this signal.
       */
      readonly cancels?: string;
    }
  /** A stream was resumed by `holder`: any other process holding it closes its copy. */
  | { readonly type: "taken"; readonly stream: string; readonly holder: string }
  /** The session ended (DELETE or expiry): every process drops what it holds of it. */
  | { readonly type: "ended" };

/** What travels on the server's channel to every process of the server. */
export type ServerSignal =
  /** Items of a list changed (each process finds their audience by name in its own registry). */
  | {
      readonly type: "listChanged";
      readonly kind: "tools" | "resources" | "prompts";
      readonly names: readonly string[];
    }
  /** `server.resourceUpdated(uri)` on some process. */
  | { readonly type: "resourceUpdated"; readonly uri: string }
  /** A handle's enable, disable or remove, applied on every process (and on any that starts later). */
  | {
      readonly type: "handle";
      readonly kind: "tools" | "resources" | "prompts" | "templates";
      readonly name: string;
      readonly op: "enable" | "disable" | "remove";
    };

/** A request served with an SSE reply, owned by a process until it answers or its lease lapses. */
export interface RunningRequest {
  readonly session: string;
  /** The request's id exactly as the client wrote it (JSON text). */
  readonly request: string;
  /** The stream its reply goes on. */
  readonly stream: string;
}

/** A task's status (the tasks extension, `io.modelcontextprotocol/tasks`): the last three are terminal. */
export type TaskStatus = "working" | "input_required" | "completed" | "cancelled" | "failed";

/** One request a task waits on the client for (an elicitation, a sampling, a roots list), by its key. */
export interface TaskInputRequest {
  readonly method: string;
  readonly params: Readonly<Record<string, unknown>>;
}

/** A task as the engine keeps it, readable from any process of the server until its TTL has passed. */
export interface TaskRecord {
  /** Unguessable (a random UUID). */
  readonly id: string;
  /** The subject of the principal that created it; undefined when created unauthenticated. */
  readonly owner: string | undefined;
  /** The process running its handler (the engine's `node`). */
  readonly node: string;
  /** The tool it runs. */
  readonly tool: string;
  readonly status: TaskStatus;
  readonly statusMessage?: string;
  /** Milliseconds since the epoch. */
  readonly createdAt: number;
  readonly lastUpdatedAt: number;
  /** Kept at least this long after `createdAt`; null: until the server ends it. */
  readonly ttlMs: number | null;
  readonly pollIntervalMs: number;
  /** What it waits on the client for, by key (keys unique over the task's life): non-empty exactly when `input_required`. */
  readonly inputRequests: Readonly<Record<string, TaskInputRequest>>;
  /** The tool's result, when `completed`. */
  readonly result?: Readonly<Record<string, unknown>>;
  /** The JSON-RPC error, when `failed`. */
  readonly error?: { readonly code: number; readonly message: string; readonly data?: unknown };
}

/**
 * A change to a task, applied atomically. A terminal task changes no more (every change to it is ignored and the
 * task returned as it is).
 */
export type TaskChange =
  /** Progress: a new status message (the task stays as it is otherwise). */
  | { readonly kind: "message"; readonly statusMessage: string }
  /** The handler asks the client: the request is added under `key`, the task is `input_required`. */
  | { readonly kind: "ask"; readonly key: string; readonly request: TaskInputRequest }
  /** A question is no longer asked (the handler gave up on it): removed; `working` again when none is left. */
  | { readonly kind: "unask"; readonly key: string }
  | { readonly kind: "complete"; readonly result: Readonly<Record<string, unknown>> }
  | {
      readonly kind: "fail";
      readonly error: { readonly code: number; readonly message: string; readonly data?: unknown };
      readonly statusMessage?: string;
    }
  | { readonly kind: "cancel"; readonly statusMessage?: string };

/** The bounds on stored tasks: in all (`max`) and per caller; `caller` is the key the server counts by (`callerKey`). */
export interface TaskLimit {
  readonly max: number;
  readonly perCaller: number;
  readonly caller: string;
}

/** What travels on a task's channel to the processes following it. */
export type TaskSignal =
  /** The client answered `key` (taken by `answerTask`): a wake-up, the running process takes it (`takeAnswers`). */
  | { readonly type: "answer"; readonly key: string; readonly value: unknown }
  /** The task changed (any change, cancellation included): its record as it is now. */
  | { readonly type: "changed"; readonly task: TaskRecord };

/** Stop hearing. */
export type Unfollow = () => MaybePromise<void>;

/** The server an engine starts for: its name, and its log (what the server's logger hears). */
export interface EngineOwner {
  readonly name: string;
  log?(entry: { readonly level: LogLevel; readonly message: string }): void;
}

/**
 * The state that must outlive one process: sessions, their events, the bus between processes, and leases. One engine
 * per server process; `start` before use, `close` when done. Processes of one server share a `namespace`.
 */
export interface Engine {
  /** This process's id among the server's processes (unique, made at start). */
  readonly node: string;
  /** True when the engine is shared between processes (a process may then never have seen a session it serves). */
  readonly shared: boolean;
  /**
   * Connect and start the engine's own timers (leases, expiry); `server.name` namespaces its keys unless the
   * engine was given a namespace; what the engine has to say about its store (a risky setting, say) goes to
   * `server.log`, the server's own log. Idempotent.
   */
  start(server: EngineOwner): MaybePromise<void>;
  /** Stop timers, drop subscriptions, disconnect; what this process owned lapses with its lease. */
  close(): MaybePromise<void>;

  // ── Sessions ──
  /**
   * Keep a new session within `limits`: "full" or "full-for-caller" when it may not be opened. The client's info and
   * capabilities are kept within `SESSION_BOUNDS`, whatever the record given carries.
   */
  createSession(record: SessionRecord, limits: SessionLimits): MaybePromise<"created" | "full" | "full-for-caller">;
  /** The session, its idle expiry restarted; undefined when it ended, expired or never was. */
  loadSession(id: string): MaybePromise<SessionRecord | undefined>;
  /**
   * Apply what its client changed; acknowledged when it returns (a later load anywhere sees it). A subscription
   * past `SESSION_BOUNDS` is refused with an `McpError` (its URI too long: -32602; too many, or too many bytes of
   * URIs: -32000) and changes nothing.
   */
  changeSession(id: string, change: SessionChange): MaybePromise<void>;
  /** End it (its events go too); `ended` travels on its channel. False when there was none. */
  deleteSession(id: string): MaybePromise<boolean>;
  /** The sessions subscribed to `uri`. */
  subscribers(uri: string): MaybePromise<readonly string[]>;
  /** Every open session's id (for a list change). */
  sessionIds(): MaybePromise<readonly string[]>;

  // ── Events ──
  /**
   * Keep an event of `stream` in the session (bounded per session) and signal it on the session's channel. With
   * `running` (a request's id text), only while this process still runs that request of the session (its `running`
   * lease, not `finished` nor claimed by another process since): else nothing is kept and `LeaseLost` is thrown.
   */
  append(
    session: string,
    stream: string,
    data: string,
    options?: { readonly running?: string },
  ): MaybePromise<StoredEvent>;
  /**
   * The events of the same stream after `lastEventId`, oldest first; undefined when the session no longer holds that
   * id (too old, or never its own).
   */
  replay(session: string, lastEventId: string): MaybePromise<{ stream: string; events: StoredEvent[] } | undefined>;

  // ── The bus ──
  /** Say something to the processes following `session` (a `client` signal with `to` is also kept for that process). */
  signal(session: string, signal: SessionSignal): MaybePromise<void>;
  /**
   * Take the client lines kept for this process (`client` signals whose `to` is this node), oldest first, each once:
   * its wake-up, or its catch-up after its subscription came back. Kept a while, bounded (the newest few hundred).
   */
  takeClientLines(): MaybePromise<readonly { readonly session: string; readonly line: string }[]>;
  /**
   * Of `running` (the requests this process runs, by session and id text), those a kept cancellation names
   * (`client` signals with `cancels`), each with its line and taken once: one round trip for all of them, made while
   * they run (a cancellation missed on the bus still stops its handler).
   */
  takeCancels(
    running: readonly Pick<RunningRequest, "session" | "request">[],
  ): MaybePromise<readonly { readonly session: string; readonly request: string; readonly line: string }[]>;
  /** Hear a session's signals (every process following it hears each once, in order, its own included). */
  follow(session: string, listener: (signal: SessionSignal) => void): MaybePromise<Unfollow>;
  /** Say something to every process of the server (handle ops are also kept for processes that start later). */
  broadcast(signal: ServerSignal): MaybePromise<void>;
  /** Hear the server's signals from other processes (never this process's own). */
  onBroadcast(listener: (signal: ServerSignal) => void): Unfollow;
  /**
   * Hear when the engine had lost its store and has it again: what was broadcast meanwhile may have been missed (the
   * bus keeps nothing), and what this process failed to say may be said now. Never at the first start.
   */
  onResume(listener: () => void): Unfollow;
  /**
   * The handle ops kept so far, in order (a process applies them at start): a handle's last enable or disable and
   * its remove, so they stay as many as the handles however often one is toggled.
   */
  handleOps(): MaybePromise<readonly Extract<ServerSignal, { type: "handle" }>[]>;

  // ── Tasks ──
  /**
   * Keep a new task: when this returns, a `loadTask` on any process finds it. With `limit`, it is counted in all
   * and under `limit.caller` until purged, over every process; nothing is kept when that caller already has
   * `perCaller` tasks stored ("full-for-caller") or the server `max` ("full").
   */
  createTask(task: TaskRecord, limit?: TaskLimit): MaybePromise<"created" | "full" | "full-for-caller">;
  /** The task, or undefined when unknown, or past its TTL and purged. */
  loadTask(id: string): MaybePromise<TaskRecord | undefined>;
  /**
   * Apply a change atomically and signal `changed` on the task's channel; the task as it is after it (unchanged
   * when it was terminal), or undefined when unknown. With `running`, the change of the process running the task:
   * made only while this process's lease still covers it (`taskRunning`, not `taskFinished` nor claimed by another
   * process since), else nothing is written and `LeaseLost` is thrown.
   */
  changeTask(
    id: string,
    change: TaskChange,
    options?: { readonly running?: boolean },
  ): MaybePromise<TaskRecord | undefined>;
  /**
   * Take the client's answers to the task's outstanding questions (others are ignored): each taken one is removed
   * from `inputRequests`, kept for the task's process (`takeAnswers`) and signalled as `answer`; the task is
   * `working` again when none is left. Returns the keys taken.
   */
  answerTask(id: string, responses: Readonly<Record<string, unknown>>): MaybePromise<readonly string[]>;
  /**
   * The answers `answerTask` kept that no one took yet, by key, each taken once (removed), with the task as it is
   * now; undefined when the task is unknown. The process running the task takes them when an `answer` signal wakes
   * it and whenever it may have missed one: an acknowledged answer waits here until taken.
   */
  takeAnswers(
    id: string,
  ): MaybePromise<{ readonly task: TaskRecord; readonly answers: Readonly<Record<string, unknown>> } | undefined>;
  /** Hear a task's signals (every process following it hears each once, in order). */
  followTask(id: string, listener: (signal: TaskSignal) => void): MaybePromise<Unfollow>;
  /** This process runs the task's handler (its lease covers it until `taskFinished`). */
  taskRunning(id: string): MaybePromise<void>;
  taskFinished(id: string): MaybePromise<void>;
  /**
   * Hear of tasks whose running process's lease lapsed while they were not terminal: each is given to exactly one
   * process, once (which fails it, saying its process stopped).
   */
  onOrphanTask(listener: (id: string) => void): Unfollow;

  // ── Leases ──
  /** This process runs `request` (its lease covers it until `finished`). */
  running(request: RunningRequest): MaybePromise<void>;
  finished(session: string, request: string): MaybePromise<void>;
  /**
   * Hear of requests whose owning process's lease lapsed: each is given to exactly one process, once (which puts
   * an error reply on its stream).
   */
  onOrphan(listener: (request: RunningRequest) => void): Unfollow;
}

/** The seconds a client is told to wait when the engine's store is out of reach and nothing said otherwise. */
export const DEFAULT_RETRY_AFTER_SECONDS = 2;

/** The engine's store could not be reached (or answered too late): a transport answers 503 with `Retry-After`. */
export class EngineUnavailable extends Error {
  readonly retryAfterSeconds: number;
  constructor(message: string, options?: { cause?: unknown; retryAfterSeconds?: number }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = "EngineUnavailable";
    this.retryAfterSeconds = options?.retryAfterSeconds ?? DEFAULT_RETRY_AFTER_SECONDS;
  }
}

/**
 * A write for work this process no longer holds (its lease lapsed and another process claimed the work, or it
 * finished it): nothing was written, so the work has one outcome, the claimer's.
 */
export class LeaseLost extends Error {
  constructor(message: string) {
    super(message);
    this.name = "LeaseLost";
  }
}

/** True for a `LeaseLost`, also from another copy of this package. */
export function isLeaseLost(error: unknown): error is LeaseLost {
  return error instanceof LeaseLost || (error instanceof Error && error.name === "LeaseLost");
}

/** True for an `EngineUnavailable`, also from another copy of this package. */
export function isEngineUnavailable(error: unknown): error is EngineUnavailable {
  return (
    error instanceof EngineUnavailable ||
    (error instanceof Error &&
      error.name === "EngineUnavailable" &&
      typeof (error as EngineUnavailable).retryAfterSeconds === "number")
  );
}
