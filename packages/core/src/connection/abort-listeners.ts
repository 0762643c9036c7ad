/**
 * One `abort` listener per signal, standing for every waiter on it: many requests sharing one signal (a call's
 * questions, a transport's requests in flight) would otherwise add a listener each, and past 10 Node prints
 * MaxListenersExceededWarning.
 */
export class AbortListeners {
  readonly #waiting = new WeakMap<AbortSignal, Set<() => void>>();

  /** Run `abort` once `signal` aborts, until the returned stop. */
  add(signal: AbortSignal, abort: () => void): () => void {
    let waiting = this.#waiting.get(signal);
    if (!waiting) {
      const all = new Set<() => void>();
      waiting = all;
      this.#waiting.set(signal, all);
      signal.addEventListener(
        "abort",
        () => {
          this.#waiting.delete(signal);
          for (const each of all) each();
        },
        { once: true },
      );
    }
    const mine = waiting;
    mine.add(abort);
    return () => {
      mine.delete(abort);
    };
  }
}
