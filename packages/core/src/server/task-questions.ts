import type { Asker } from "../context/ask.js";
import { isLeaseLost, type TaskChange, type TaskInputRequest, type TaskStore } from "../engine/engine.js";
import { ClientError, isMcpError, McpError } from "../wire/errors.js";
import { ErrorCode, isPlainObject } from "../wire/json-rpc.js";
import { RUNNING } from "./task-outcome.js";

// A running task's questions to the client: each asked under a key never used before in the task, written to the
// task's record (fenced by its lease), and awaited until its answer is taken from the engine (no replay).

type Waiting = {
  resolve: (answer: Record<string, unknown>) => void;
  reject: (why: unknown) => void;
  // Aborted once the question is answered or given up: what else carries it to the client withdraws it.
  settled: AbortController;
};

/**
 * What the client answered, when a question it was sent rejected with it: its JSON-RPC error (a ClientError; a
 * handshake-era client may answer elicitation/create with one), or a result no answer can be (an McpError: none, not
 * an object, nested too deep), kept as JSON by the engine as a one-element array, which no result is (an object) and
 * tasks/update refuses. Undefined when the client answered nothing (timed out, its input or stream ended).
 */
export function errorAnswer(error: unknown): unknown[] | undefined {
  if (error instanceof ClientError) {
    const said = error.message.slice(`The client answered ${error.method} with error ${error.code}: `.length);
    return [{ method: error.method, code: error.code, message: said, ...dataOf(error.data) }];
  }
  if (isMcpError(error)) return [{ code: error.code, message: error.message, ...dataOf(error.data) }];
  return undefined;
}

const dataOf = (data: unknown) => (data === undefined ? {} : { data });

/** The error an `errorAnswer` holds (a ClientError when it names the method the client answered), else undefined. */
function errorOf(value: unknown): Error | undefined {
  if (!Array.isArray(value) || value.length !== 1 || !isPlainObject(value[0])) return undefined;
  const { method, code, message, data } = value[0];
  if (typeof code !== "number" || typeof message !== "string") return undefined;
  return typeof method === "string" ? new ClientError(method, code, message, data) : new McpError(code, message, data);
}

/** Told of each question once the task's record holds it (a handshake-era task also sends it to its connection). */
export type QuestionOutlet = (key: string, request: TaskInputRequest, settled: AbortSignal) => void;

/** One task's questions waiting for answers, and the keys it has asked under. */
export class TaskQuestions {
  readonly #engine: TaskStore;
  readonly #id: string;
  readonly #signal: AbortSignal;
  // This process lost the task's lease: nothing more is written for it here.
  readonly #lost: () => void;
  readonly #waiting = new Map<string, Waiting>();
  readonly #asked = new Set<string>();
  readonly #counters: Record<string, number> = Object.create(null);

  readonly #outlet: QuestionOutlet | undefined;

  constructor(engine: TaskStore, id: string, signal: AbortSignal, lost: () => void, outlet?: QuestionOutlet) {
    this.#outlet = outlet;
    this.#engine = engine;
    this.#id = id;
    this.#signal = signal;
    this.#lost = lost;
  }

  /** Put a question to the client, as the task's `inputRequests[key]`; resolves with its answer. */
  readonly ask: Asker = (method, params, prefix, key) => {
    if (this.#signal.aborted) return Promise.reject(this.#signal.reason);
    let at = key;
    if (at === undefined) {
      do {
        const n = (this.#counters[prefix] ?? 0) + 1;
        this.#counters[prefix] = n;
        at = `${prefix}-${n}`;
      } while (this.#asked.has(at));
    } else if (this.#asked.has(at)) {
      return Promise.reject(new Error(`the key "${at}" was already asked in this task: a task never reuses a key`));
    }
    this.#asked.add(at);
    const asked = at;
    return new Promise((resolve, reject) => {
      const settled = new AbortController();
      this.#waiting.set(asked, { resolve, reject, settled });
      const request = { method, params };
      const change: TaskChange = { kind: "ask", key: asked, request };
      Promise.resolve(this.#engine.changeTask(this.#id, change, RUNNING)).then(
        () => {
          if (!settled.signal.aborted) this.#outlet?.(asked, request, settled.signal);
        },
        (error: unknown) => {
          this.#waiting.delete(asked);
          settled.abort();
          reject(error);
          if (isLeaseLost(error)) this.#lost();
        },
      );
    });
  };

  /**
   * The client's answer under `key` (taken from the engine): an object resolves its question; an `errorAnswer` rejects
   * it with that error (its JSON-RPC error or malformed result, as the same question outside a task would); anything
   * else fails it.
   */
  answer(key: string, value: unknown): void {
    const waiting = this.#waiting.get(key);
    if (waiting === undefined) return;
    this.#waiting.delete(key);
    waiting.settled.abort();
    if (isPlainObject(value)) waiting.resolve(value);
    else
      waiting.reject(
        errorOf(value) ?? new McpError(ErrorCode.InvalidParams, `inputResponses["${key}"] must be an object`),
      );
  }

  /** Every question still waiting fails with `why` (the task stopped or ended). */
  failAll(why: unknown): void {
    for (const waiting of this.#waiting.values()) {
      waiting.settled.abort();
      waiting.reject(why);
    }
    this.#waiting.clear();
  }
}
