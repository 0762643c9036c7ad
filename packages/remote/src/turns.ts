// A gate for work that must not all run at once (lane.ts: a call's answers to the remote's questions, each a POST).

/** Work done at most `n` at once, the rest in the order it came. */
export class Turns {
  #free: number;
  readonly #waiting: (() => void)[] = [];

  constructor(n: number) {
    this.#free = n;
  }

  async take(work: () => Promise<void>): Promise<void> {
    if (this.#free > 0) this.#free--;
    else await new Promise<void>((resolve) => this.#waiting.push(resolve));
    try {
      await work();
    } finally {
      const next = this.#waiting.shift();
      if (next) next();
      else this.#free++;
    }
  }
}
