import type { MaybePromise } from "../wire/maybe.js";
import type { Unfollow } from "./lifecycle.js";

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
  /**
   * "handshake": made by a 2025-11-25 request (`params.task`), answered only by that revision's `tasks/*`; absent:
   * the tasks extension's (2026-07-28). Never changes.
   */
  readonly era?: "handshake";
  /** A handshake-era task made without a principal: the session it is bound to. Never changes. */
  readonly session?: string;
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

/**
 * The tasks of a server (the tasks extension): each task's record, the client's answers to its questions, its
 * channel, and a lease on its handler, readable and changeable from every process. Durable: a task is kept when
 * `createTask` returns (a reply that announces it can be answered anywhere), and an answer when `answerTask`
 * returns, until the process running the task takes it (`takeAnswers`), so a missed signal loses nothing. Bounded:
 * tasks stored in all and per caller (`TaskLimit`, over every process, until purged), and each kept only until
 * `createdAt + ttlMs` (never purged before; a load after finds nothing; `null`: never). Every change is atomic and
 * signalled as `changed` on the task's channel (each follower on every process hears each signal once, in order); a
 * terminal task (`completed`, `cancelled`, `failed`) never changes again, whichever process tries. The lease: while
 * this process runs a task's handler (`taskRunning` until `taskFinished`), its fenced changes (`running`) are made;
 * once it no longer holds the task (finished, or its lease lapsed and another process claimed the task) they throw
 * `LeaseLost` and write nothing, and a task whose process stopped is given to exactly one other (`onOrphanTask`),
 * which fails it.
 */
export interface TaskStore {
  /**
   * Keep a new task: when this returns, a `loadTask` on any process finds it. With `limit`, it is counted in all
   * and under `limit.caller` until purged, over every process; nothing is kept when that caller already has
   * `perCaller` tasks stored ("full-for-caller") or the server `max` ("full"). A task of that id already: a plain
   * `Error`.
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
  /** The handler ended: the lease covers the task no more. */
  taskFinished(id: string): MaybePromise<void>;
  /**
   * Hear of tasks whose running process's lease lapsed while they were not terminal: each is given to exactly one
   * process, once (which fails it, saying its process stopped). An engine may claim only while someone listens.
   */
  onOrphanTask(listener: (id: string) => void): Unfollow;
}
