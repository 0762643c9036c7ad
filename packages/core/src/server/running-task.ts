import { logData } from "../context/client-log.js";
import type { RequestContext, TaskRun } from "../context/context.js";
import type { LogEntry } from "../context/logger.js";
import { TaskContext, type TaskPort } from "../context/task-context.js";
import {
  isLeaseLost,
  type TaskChange,
  type TaskRecord,
  type TaskSignal,
  type TaskStore,
  type Unfollow,
} from "../engine/engine.js";
import { isTerminal } from "../engine/memory-tasks.js";
import type { LogLevel } from "../protocol/log-levels.js";
import type { RevisionFeatures } from "../protocol/revision.js";
import { messageOf } from "../wire/errors.js";
import { failureOf, isProtocolFailure, keepOutcome, RUNNING } from "./task-outcome.js";
import { type QuestionOutlet, TaskQuestions } from "./task-questions.js";

// One task's handler as it runs on this process (the runner, task-runner.ts, starts it and answers tasks/*): its
// lease, its status message, its stop; its questions (task-questions.ts) and its outcome (task-outcome.ts).

/** What else hears a task's questions and changes (a handshake-era task's connection: task-outlet.ts). */
export interface TaskOutlet {
  readonly ask: QuestionOutlet;
  /** The task as it is now, after a change. */
  status(task: TaskRecord): void;
  /** The handler's progress (`ctx.progress`). */
  progress(done: number, total: number | undefined, message: string | undefined): void;
}

/** At most one status message per this long is written (the last one always is). */
const MESSAGE_EVERY_MS = 250;
// setTimeout's longest delay: a task kept longer is not stopped by a timer (it would fire at once).
const MAX_TIMER_MS = 2 ** 31 - 1;

/** One task's handler running on this process: its signal, its questions waiting for answers, its progress. */
export class RunningTask implements TaskPort {
  readonly signal: AbortSignal;
  unfollow: Unfollow | undefined;
  readonly #controller = new AbortController();
  readonly #engine: TaskStore;
  readonly #tool: string;
  readonly #log: (entry: LogEntry) => void;
  readonly #questions: TaskQuestions;
  // Each question under a key never used before in this task; the handler waits for its answer (no replay).
  readonly ask: TaskPort["ask"];
  readonly #outlet: TaskOutlet | undefined;
  #cancelled = false;
  #done = false;
  #released: Promise<void> | undefined;
  readonly #ended: () => void;
  #expiry: ReturnType<typeof setTimeout> | undefined;
  #message: string | undefined;
  #lastWrite = Number.NEGATIVE_INFINITY;
  #timer: ReturnType<typeof setTimeout> | undefined;
  // A take of the kept answers under way, and whether another was asked for meanwhile (run again after it).
  #collecting = false;
  #collectAgain = false;

  constructor(
    engine: TaskStore,
    readonly id: string,
    tool: string,
    log: (entry: LogEntry) => void,
    ended: () => void,
    outlet?: TaskOutlet,
  ) {
    this.#outlet = outlet;
    this.#ended = ended;
    this.#engine = engine;
    this.#tool = tool;
    this.#log = log;
    this.signal = this.#controller.signal;
    this.#questions = new TaskQuestions(engine, id, this.signal, () => this.#lost(), outlet?.ask);
    this.ask = this.#questions.ask;
  }

  /**
   * What the task's channel says: an answer wakes the handler's side to take it from the engine (where it waits until
   * taken); a cancellation stops the handler.
   */
  heard(signal: TaskSignal): void {
    if (signal.type === "answer") void this.recheck();
    else this.#saw(signal.task);
  }

  /**
   * Take the answers kept for this task and see its status: on a wake-up, and whenever a signal may have been missed
   * (the engine's subscription came back, or the runner's periodic check). One at a time; failures wait for the next.
   */
  async recheck(): Promise<void> {
    if (this.#collecting) {
      this.#collectAgain = true;
      return;
    }
    this.#collecting = true;
    try {
      do {
        this.#collectAgain = false;
        if (this.#cancelled || this.#released) return;
        const taken = await this.#engine.takeAnswers(this.id);
        if (taken === undefined) return;
        for (const key of Object.keys(taken.answers)) this.#questions.answer(key, taken.answers[key]);
        this.#saw(taken.task);
      } while (this.#collectAgain);
    } catch {
      // The engine away: its resume (or the next check) takes them.
    } finally {
      this.#collecting = false;
    }
  }

  // The task as the store has it: cancelled stops the handler; ended by another process (it took the task over when
  // this one's lease lapsed) stops it too, its outcome dropped.
  #saw(task: TaskRecord): void {
    this.#outlet?.status(task);
    if (task.status === "cancelled") this.#stop(new DOMException("The task was cancelled", "AbortError"));
    else if (isTerminal(task.status) && !this.#done) this.#lost();
  }

  // This process's lease on the task was claimed by another: nothing more is written for it here.
  #lost(): void {
    if (this.#cancelled) return;
    this.#report(
      "warning",
      "lost its lease to another process (which ended the task): its handler is stopped and its outcome dropped",
      undefined,
    );
    this.#stop(new DOMException("The task was taken over by another process", "AbortError"));
  }

  /** Past its TTL the task is purged: its handler is stopped as by a cancellation (nothing is left to keep). */
  expireAfter(ttlMs: number | null): void {
    if (ttlMs === null || ttlMs > MAX_TIMER_MS) return;
    this.#expiry = setTimeout(() => this.#stop(new DOMException("The task expired", "AbortError")), ttlMs);
    (this.#expiry as { unref?: () => void }).unref?.();
  }

  // Abort the handler and its questions; its outcome is discarded, and the lease ends now, even for a handler that
  // never settles.
  #stop(why: DOMException): void {
    if (this.#cancelled) return;
    this.#cancelled = true;
    this.#controller.abort(why);
    this.#questions.failAll(why);
    void this.#release();
  }

  // Once: stop following the task and end its lease.
  #release(): Promise<void> {
    this.#released ??= (async () => {
      this.#ended();
      clearTimeout(this.#expiry);
      try {
        await this.unfollow?.();
        await this.#engine.taskFinished(this.id);
      } catch (error) {
        this.#report("warning", `could not end its lease: ${messageOf(error)}`, error);
      }
    })();
    return this.#released;
  }

  progress(done: number, total: number | undefined, message: string | undefined): void {
    if (!this.#done) this.#outlet?.progress(done, total, message);
  }

  message(text: string): void {
    if (this.#done) return;
    this.#message = text;
    if (this.#timer !== undefined) return;
    const wait = this.#lastWrite + MESSAGE_EVERY_MS - Date.now();
    if (wait <= 0) void this.#writeMessage();
    else
      this.#timer = setTimeout(() => {
        this.#timer = undefined;
        void this.#writeMessage();
      }, wait);
  }

  async #writeMessage(): Promise<void> {
    const statusMessage = this.#message;
    if (statusMessage === undefined) return;
    this.#message = undefined;
    this.#lastWrite = Date.now();
    try {
      await this.#engine.changeTask(this.id, { kind: "message", statusMessage }, RUNNING);
    } catch (error) {
      if (isLeaseLost(error)) this.#lost();
      else this.#report("warning", `could not keep its status message: ${messageOf(error)}`, error);
    }
  }

  log(level: LogLevel, first: unknown, second: unknown, logger: string | undefined): void {
    const data = logData(first, second);
    const text = typeof data === "string" ? data : JSON.stringify(data);
    this.#log({
      level,
      message: `task ${this.id} (${logger ?? this.#tool}): ${text}`,
      method: "tools/call",
      tool: this.#tool,
    });
  }

  /** Run the handler to its outcome (the first part synchronously: a detached handler is adopted before the reply). */
  async run(from: RequestContext & { revision: RevisionFeatures }, run: TaskRun): Promise<void> {
    const ctx = new TaskContext(from, this, this.#tool);
    let outcome: TaskChange;
    try {
      const result = await run(ctx);
      outcome = { kind: "complete", result: result as Record<string, unknown> };
    } catch (error) {
      // A protocol error fails the task as itself; anything else is an internal error, logged.
      if (!isProtocolFailure(error) && !this.#cancelled) this.#report("error", `failed: ${messageOf(error)}`, error);
      outcome = failureOf(error);
    }
    this.#done = true;
    clearTimeout(this.#timer);
    try {
      if (this.#message !== undefined && !this.#cancelled) await this.#writeMessage();
      const kept = await keepOutcome(this.#engine, this.id, outcome, () => this.#cancelled, this.#report.bind(this));
      if (kept !== undefined) this.#outlet?.status(kept);
    } finally {
      this.#questions.failAll(new Error("the task ended"));
      await this.#release();
    }
  }

  #report(level: LogLevel, message: string, error: unknown): void {
    this.#log({
      level,
      message: `task ${this.id} (tool ${this.#tool}) ${message}`,
      error,
      method: "tools/call",
      tool: this.#tool,
    });
  }
}
