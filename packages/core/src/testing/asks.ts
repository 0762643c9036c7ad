import type { Root } from "../context/ask.js";
import { isMcpError, McpError, messageOf } from "../wire/errors.js";
import { ErrorCode, isPlainObject, type RequestId } from "../wire/json-rpc.js";
import type { MaybePromise } from "../wire/maybe.js";
import { type Answerer, type Exchange, keyOf, type Waiting, type Wire } from "./wire.js";

// The server's asks (elicitation, sampling, roots) answered by the test's handlers, the same in both eras: a
// handshake-era request is answered on the wire, a 2026-07-28 `input_required` round is answered and retried.

/**
 * Answers a request the server sends the client (elicitation, sampling) with its result, the same way in both eras:
 * a refusal is a result (`{ action: "decline" }`). Anything else it throws (a failed `expect`) rejects the test's
 * call with that very error and cancels the call on the server; an `McpError` it throws is instead the client's
 * JSON-RPC error answer in the handshake era (2026-07-28 has no error answers: the call rejects with it).
 * `signal` aborts when the call is aborted or the server withdraws its request.
 */
export type ClientHandler = (
  params: Record<string, unknown>,
  context: { signal: AbortSignal },
) => MaybePromise<Record<string, unknown>>;

/** The test's answers to the server's asks. */
export interface AskHandlers {
  /** Answers `elicitation/create`. */
  elicit?: ClientHandler;
  /** Answers `sampling/createMessage`. */
  sample?: ClientHandler;
  /** Answers `roots/list`. */
  roots?: Root[];
}

// 2026-07-28: a call still asking for input after this many rounds is taken to loop.
const MAX_ROUNDS = 100;

// What each handler answers, said when one returns something else.
const EXAMPLE_ANSWER: Readonly<Record<string, string>> = {
  "elicitation/create": '{ action: "accept", content: { … } }, or { action: "decline" }',
  "sampling/createMessage": '{ role: "assistant", content: { type: "text", text }, model }',
};

/** The client capabilities the handlers imply. */
export function impliedCapabilities(handlers: AskHandlers): Record<string, unknown> {
  const capabilities: Record<string, unknown> = {};
  if (handlers.elicit) capabilities.elicitation = { form: {}, url: {} };
  if (handlers.sample) capabilities.sampling = { tools: {} };
  if (handlers.roots) capabilities.roots = {};
  return capabilities;
}

/** The test's handlers at work: each question the server asks, answered, in either era. */
export class Asks implements Answerer {
  readonly #handlers: AskHandlers;
  // Handshake era: the server's requests being answered, by the server's id.
  readonly #asking = new Map<string, AbortController>();
  // 2026-07-28: rounds whose questions are being answered (between two requests of one call).
  readonly #rounds = new Set<AbortController>();
  #stopped: Error | undefined;

  constructor(handlers: AskHandlers) {
    this.#handlers = handlers;
  }

  /** Handshake era: answer the server's request on the wire; a failed assertion fails the call that caused it. */
  ask(id: RequestId, method: string, params: Record<string, unknown>, related: Waiting | undefined, wire: Wire): void {
    const controller = new AbortController();
    this.#asking.set(keyOf(id), controller);
    related?.answering.add(controller);
    const settled = () => {
      this.#asking.delete(keyOf(id));
      related?.answering.delete(controller);
      return !controller.signal.aborted;
    };
    void this.#answer(method, params, controller.signal).then(
      (result) => {
        if (settled()) wire.deliver({ jsonrpc: "2.0", id, result });
      },
      (error: unknown) => {
        if (!settled()) return;
        // A failed assertion fails the call that caused the question, as it does in 2026-07-28.
        if (related && !isMcpError(error)) return related.fail(error, `the test client's ${method} handler threw`);
        const code = isMcpError(error) ? error.code : ErrorCode.InternalError;
        wire.deliver({ jsonrpc: "2.0", id, error: { code, message: messageOf(error) } });
      },
    );
  }

  /** The server withdrew its request: the handler answering it is told. */
  withdraw(id: unknown): void {
    this.#asking.get(keyOf(id))?.abort();
  }

  /**
   * 2026-07-28: answer an `input_required` result's questions; resolves to the params of the retry (the call's own
   * `params` with the answers and the server's `requestState`).
   */
  async round(
    method: string,
    params: Record<string, unknown> | undefined,
    result: Record<string, unknown>,
    into: Exchange,
    signal: AbortSignal | undefined,
  ): Promise<Record<string, unknown>> {
    if (into.rounds >= MAX_ROUNDS) {
      throw new Error(
        `${method} still asked for input after ${MAX_ROUNDS} rounds: the server asks again whatever it is answered`,
      );
    }
    into.rounds++;
    const inputResponses: Record<string, unknown> = {};
    const asked = isPlainObject(result.inputRequests) ? result.inputRequests : {};
    for (const [key, request] of Object.entries(asked)) {
      const { method: askedMethod, params: askedParams } = request as {
        method: string;
        params?: Record<string, unknown>;
      };
      into.requests.push({ method: askedMethod, params: askedParams ?? {} });
      inputResponses[key] = await this.#answerInRound(askedMethod, askedParams ?? {}, signal);
    }
    const retry: Record<string, unknown> = { ...params, inputResponses };
    if (result.requestState !== undefined) retry.requestState = result.requestState;
    return retry;
  }

  /** One question answered by the test's handler, outside a round (a task's `inputRequests` entry). */
  answerOne(method: string, params: Record<string, unknown>, signal: AbortSignal | undefined): Promise<unknown> {
    return this.#answerInRound(method, params, signal);
  }

  /** The client closed: every round being answered is aborted with `error`, as is every later one. */
  stop(error: Error): void {
    this.#stopped = error;
    for (const round of this.#rounds) round.abort(error);
  }

  // A round's question, answered by the test's handler; the call's abort or close() stops the wait (and tells it).
  async #answerInRound(
    method: string,
    params: Record<string, unknown>,
    signal: AbortSignal | undefined,
  ): Promise<Record<string, unknown>> {
    if (this.#stopped) throw this.#stopped;
    const round = new AbortController();
    const onAbort = () => round.abort(signal?.reason);
    if (signal?.aborted) onAbort();
    signal?.addEventListener("abort", onAbort, { once: true });
    this.#rounds.add(round);
    try {
      return await abortable(this.#answer(method, params, round.signal), round.signal);
    } finally {
      this.#rounds.delete(round);
      signal?.removeEventListener("abort", onAbort);
    }
  }

  #answer(method: string, params: Record<string, unknown>, signal: AbortSignal): Promise<Record<string, unknown>> {
    const { elicit, sample, roots } = this.#handlers;
    const handler: ClientHandler | undefined =
      method === "elicitation/create"
        ? elicit
        : method === "sampling/createMessage"
          ? sample
          : method === "roots/list" && roots
            ? () => ({ roots })
            : undefined;
    if (!handler) return Promise.reject(new McpError(ErrorCode.MethodNotFound, `Method not found: ${method}`));
    // A handler that forgot to return fails the call with that, in both eras (not a wait for a reply, nor a retry).
    return Promise.resolve()
      .then(() => handler(params, { signal }))
      .then((result: unknown) => {
        if (isPlainObject(result)) return result;
        throw new TypeError(
          `the test client's ${method} handler returned ${result === null ? "null" : Array.isArray(result) ? "an array" : typeof result}, not a result: return the object the client answers (${EXAMPLE_ANSWER[method] ?? "{ … }"})`,
        );
      });
  }
}

// A test's handler that is still working when the call is aborted: the call does not wait for it.
function abortable<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
