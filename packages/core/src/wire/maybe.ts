/** A value now, or later. */
export type MaybePromise<T> = T | Promise<T>;

/** True for anything with a `then` method. */
export function isPromiseLike<T>(value: unknown): value is PromiseLike<T> {
  return typeof (value as { then?: unknown } | null | undefined)?.then === "function";
}

/**
 * `andThen(value, next)`: `next(value)` now when `value` is ready, after it settles when it is a promise: synchronous handlers
 * answer without a single promise being made. A synchronous throw from `next` propagates to the caller.
 */
export function andThen<T, R>(value: MaybePromise<T>, next: (value: T) => MaybePromise<R>): MaybePromise<R> {
  return isPromiseLike<T>(value) ? Promise.resolve(value).then(next) : next(value);
}

/** Run `body`; a synchronous throw or a rejection goes to `recover`. */
export function attempt<R>(body: () => MaybePromise<R>, recover: (error: unknown) => MaybePromise<R>): MaybePromise<R> {
  let result: MaybePromise<R>;
  try {
    result = body();
  } catch (error) {
    return recover(error);
  }
  return isPromiseLike<R>(result) ? Promise.resolve(result).then(undefined, recover) : result;
}
