/**
 * `done` checked as a handler's next progress after `last` (`ctx.progress`, in a request or a task): a finite
 * number greater than the last one, else a TypeError or RangeError saying so.
 */
export function nextProgress(done: number, last: number): number {
  if (typeof done !== "number" || !Number.isFinite(done)) {
    throw new TypeError(`ctx.progress(done): done must be a finite number, not ${String(done)}`);
  }
  if (done <= last) {
    throw new RangeError(`ctx.progress(${done}) after ctx.progress(${last}): progress must increase with every call`);
  }
  return done;
}
