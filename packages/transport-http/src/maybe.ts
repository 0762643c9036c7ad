import type { MaybePromise } from "@toolsmith/core";

// The memory engine answers synchronously: these chain a value now, or later, without making a promise for it.

/** `next(value)` now when `value` is ready, after it settles when it is a promise. */
export function andThen<T, R>(value: MaybePromise<T>, next: (value: T) => MaybePromise<R>): MaybePromise<R> {
  return value instanceof Promise ? value.then(next) : next(value);
}

/** Run `body`; a synchronous throw or a rejection goes to `recover`. */
export function attempt<R>(body: () => MaybePromise<R>, recover: (error: unknown) => MaybePromise<R>): MaybePromise<R> {
  let result: MaybePromise<R>;
  try {
    result = body();
  } catch (error) {
    return recover(error);
  }
  return result instanceof Promise ? result.then(undefined, recover) : result;
}
