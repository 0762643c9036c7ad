import { InputRequired, type InputRound } from "../context/ask.js";
import type { AuthInfo } from "../context/context.js";
import { type AskTarget, inputRequired, openRound } from "../context/input-required.js";
import type { RequestContextImpl } from "../context/request-context.js";
import { describeOperation, runMiddleware } from "../middleware/compose.js";
import { type StampedResult, withoutHint } from "../protocol/cache-hints.js";
import { McpError } from "../wire/errors.js";
import { ErrorCode } from "../wire/json-rpc.js";
import { isPromiseLike, type MaybePromise } from "../wire/maybe.js";
import type { Method, MethodEnv } from "./methods.js";
import type { ServerCore } from "./server-core.js";

export type Params = Record<string, unknown> | undefined;

/** What a request leaves to reply with when it was cancelled: nothing. */
export const NO_REPLY: unique symbol = Symbol("no reply");
/** What a request leaves to reply with: its result (stamped), or `NO_REPLY` when it was cancelled. */
export type Reply = Record<string, unknown> | StampedResult | typeof NO_REPLY;

/** A request being served, as its continuations need it. */
interface Served {
  readonly handler: Method;
  readonly method: string;
  readonly params: Params;
  readonly ctx: RequestContextImpl;
  readonly key: string;
  readonly mayAsk: boolean;
}

function askTarget(handler: Method, method: string, params: Params, auth: AuthInfo | undefined): AskTarget {
  const { target, args } = (handler.asks as NonNullable<Method["asks"]>)(params);
  return { method, target, args, auth };
}

/** The client requests being served: each in flight by its id until answered, run through middleware, stamped. */
export class InFlight {
  readonly #core: ServerCore;
  readonly #env: MethodEnv;
  // Requests whose answer is still to come, by key. One answered before `run` returns never enters it: adding and
  // deleting the only entry of a Map (which then shrinks) costs more than a synchronous handler's whole call.
  readonly #requests = new Map<string, RequestContextImpl>();
  // Requests whose handler is running synchronously (innermost last): in flight without a Map entry.
  readonly #running: RequestContextImpl[] = [];

  constructor(core: ServerCore, env: MethodEnv) {
    this.#core = core;
    this.#env = env;
  }

  get size(): number {
    let running = 0;
    for (const ctx of this.#running) if (!ctx.cancelled) running++;
    return this.#requests.size + running;
  }

  /**
   * The client cancelled the request under `key` (`requestKey`): the id is free again at once; the cancelled
   * handler's late finish answers nothing.
   */
  cancel(key: string, reason: string): void {
    const ctx = this.#requests.get(key);
    if (ctx) {
      this.#requests.delete(key);
      ctx.cancel(reason);
      return;
    }
    this.#runningAs(key)?.cancel(reason);
  }

  abortAll(why: unknown): void {
    for (const ctx of this.#requests.values()) ctx.abort(why);
    for (const ctx of this.#running) ctx.abort(why);
  }

  /** Serve a request from here until answered; `mayAsk`: it may answer input_required. */
  run(handler: Method, method: string, params: Params, ctx: RequestContextImpl, mayAsk: boolean): MaybePromise<Reply> {
    const { key } = ctx;
    this.#refuseTaken(ctx);
    this.#running.push(ctx);
    let reply: MaybePromise<Reply>;
    try {
      reply = this.#invoke({ handler, method, params, ctx, key, mayAsk });
    } finally {
      this.#running.pop();
    }
    // Its answer is to come: in flight by its key until then (unless it was cancelled on the way, freeing the id).
    if (isPromiseLike<Reply>(reply) && !ctx.cancelled) this.#requests.set(key, ctx);
    return reply;
  }

  // The request running synchronously under `key`, not cancelled (a cancelled one no longer holds its id).
  #runningAs(key: string): RequestContextImpl | undefined {
    for (const ctx of this.#running) if (ctx.key === key && !ctx.cancelled) return ctx;
    return undefined;
  }

  // An id is taken while a request holds it, answered or not yet.
  #refuseTaken(ctx: RequestContextImpl): void {
    const { key } = ctx;
    if (this.#requests.has(key) || this.#runningAs(key) !== undefined) {
      const shown = typeof ctx.requestId === "string" ? JSON.stringify(ctx.requestId) : key.slice(1);
      throw new McpError(
        ErrorCode.InvalidRequest,
        `Invalid request: id ${shown} is already in use by a request in flight`,
      );
    }
  }

  // In flight from here until answered: the id is taken, and a cancellation finds the request.
  #register(ctx: RequestContextImpl): string {
    this.#refuseTaken(ctx);
    this.#requests.set(ctx.key, ctx);
    return ctx.key;
  }

  #invoke(served: Served): MaybePromise<Reply> {
    const { handler, params, ctx } = served;
    const { middleware } = this.#core;
    let result: MaybePromise<Record<string, unknown>>;
    try {
      // Without middleware, nothing of its machinery runs.
      result =
        middleware.length === 0 || handler.operation === undefined
          ? handler.run(this.#env, params, ctx)
          : runMiddleware(middleware, describeOperation(served.method, handler.operation, params, ctx), () =>
              handler.run(this.#env, params, ctx),
            );
    } catch (error) {
      return this.#failed(error, served);
    }
    if (isPromiseLike<Record<string, unknown>>(result)) {
      return Promise.resolve(result).then(
        (value) => this.#answered(value, served),
        (error: unknown) => this.#failed(error, served),
      );
    }
    return this.#answered(result, served);
  }

  // A list that may differ per caller (guards, or middleware that could filter it) must not be cached publicly.
  #perCaller(handler: Method): boolean {
    if (handler.operation !== "list") return false;
    if (this.#core.middleware.length > 0) return true;
    const kind = handler.capability;
    return (kind === "tools" || kind === "prompts" || kind === "resources") && this.#core.router.dependsOnCaller(kind);
  }

  #done({ ctx, key }: Served): void {
    ctx.finish();
    if (this.#requests.get(key) === ctx) this.#requests.delete(key);
  }

  #answered(result: Record<string, unknown>, served: Served): MaybePromise<Reply> {
    const { ctx } = served;
    // A handler that swallowed the question still has no answer to it.
    if (served.mayAsk && ctx.inputs?.asked !== undefined) return this.#needsInput(served);
    this.#done(served);
    if (ctx.cancelled) return NO_REPLY;
    if (!ctx.revision.resultType) return withoutHint(result);
    const { handler } = served;
    // Where a mounted module has a part in it, a hint narrower than the server's: a read's on ctx, a list's method's.
    const fallback = ctx.cacheHint ?? handler.fallbackCache?.(this.#core);
    return this.#core.stamp(result, handler.cache, this.#perCaller(handler), fallback);
  }

  #failed(error: unknown, served: Served): MaybePromise<Reply> {
    if (error instanceof InputRequired && served.mayAsk) return this.#needsInput(served);
    this.#done(served);
    if (served.ctx.cancelled) return NO_REPLY;
    if (error instanceof InputRequired) throw new Error("a handler asked the client outside a request that may ask");
    throw error;
  }

  // 2026-07-28: the handler asked what this round cannot answer: the request is answered input_required.
  async #needsInput(served: Served): Promise<Reply> {
    const { handler, method, params, ctx } = served;
    try {
      const result = await inputRequired(
        this.#core.sealer,
        ctx.inputs as InputRound,
        askTarget(handler, method, params, ctx.auth),
        Date.now(),
        this.#core.requestStateTtlMs,
        this.#core,
      );
      return ctx.cancelled ? NO_REPLY : this.#core.stamp(result, undefined);
    } finally {
      this.#done(served);
    }
  }

  /** A retry of a method that may ask: in flight (so a cancellation finds it) while its state is checked. */
  retry(
    handler: Method,
    method: string,
    params: Params,
    ctx: RequestContextImpl,
    auth: AuthInfo | undefined,
  ): MaybePromise<Reply> {
    const key = this.#register(ctx);
    const served: Served = { handler, method, params, ctx, key, mayAsk: true };
    let opened: MaybePromise<InputRound>;
    try {
      opened = openRound(this.#core.sealer, params, askTarget(handler, method, params, auth), Date.now(), this.#core);
    } catch (error) {
      this.#done(served);
      throw error;
    }
    return Promise.resolve(opened).then(
      (round) => {
        ctx.inputs = round;
        if (ctx.cancelled) {
          this.#done(served);
          return NO_REPLY;
        }
        return this.#invoke(served);
      },
      (error: unknown) => this.#failed(error, served),
    );
  }
}
