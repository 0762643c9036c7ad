// A sweep runs at most this often: what lapsed is dropped at most this late (a read never finds it meanwhile).
const SWEEP_FLOOR_MS = 1000;
// setTimeout's longest delay: a longer one would fire at once.
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * When a memory store sweeps: soon after the earliest time planned, then when the sweep says something lapses next
 * (undefined: nothing does). Housekeeping: the timer never keeps a finished process alive.
 */
export class SweepTimer {
  readonly #now: () => number;
  readonly #sweep: () => number | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  // When the planned sweep runs (ms), while one is planned.
  #at: number | undefined;

  constructor(now: () => number, sweep: () => number | undefined) {
    this.#now = now;
    this.#sweep = sweep;
  }

  /** Sweep soon after `at` (unless a sweep is planned before it; undefined: no sweep needed). */
  plan(at: number | undefined): void {
    if (at === undefined || (this.#at !== undefined && this.#at <= at)) return;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    const delay = Math.min(Math.max(at - this.#now() + 1, SWEEP_FLOOR_MS), MAX_TIMER_MS);
    this.#at = this.#now() + delay;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#at = undefined;
      this.plan(this.#sweep());
    }, delay);
    (this.#timer as { unref?: () => void }).unref?.();
  }

  /** No sweep planned. */
  stop(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#at = undefined;
  }
}
