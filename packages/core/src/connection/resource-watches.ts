import type { LogEntry } from "../context/logger.js";

interface Watched {
  count: number;
  readonly stop: () => void;
}

/**
 * The URIs this process's clients are subscribed to, counted (a `resources/subscribe`, a listen stream naming one):
 * a resource's `watch` runs on the first and its stop on the last. Each holder is bounded (as a session is), so
 * neither is the count of watches.
 */
export class ResourceWatches {
  readonly #watched = new Map<string, Watched>();
  readonly #log: (entry: LogEntry) => void;

  constructor(log: (entry: LogEntry) => void) {
    this.#log = log;
  }

  /** One more holder of `uri`; `watch` (the serving resource's) starts it if none held it. Returns the release. */
  hold(uri: string, watch: ((uri: string) => () => void) | undefined): () => void {
    if (watch === undefined) return () => {};
    let watched = this.#watched.get(uri);
    if (watched) watched.count++;
    else {
      watched = { count: 1, stop: this.#start(uri, watch) };
      this.#watched.set(uri, watched);
    }
    const held = watched;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (--held.count > 0 || this.#watched.get(uri) !== held) return;
      this.#watched.delete(uri);
      this.#run(uri, "stop", held.stop);
    };
  }

  // A watch that throws watches nothing; the subscription stands (the resource may still be updated by others).
  #start(uri: string, watch: (uri: string) => () => void): () => void {
    let stop: () => void = () => {};
    this.#run(uri, "watch", () => {
      const made = watch(uri);
      if (typeof made === "function") stop = made;
    });
    return stop;
  }

  #run(uri: string, what: string, run: () => void): void {
    try {
      run();
    } catch (error) {
      this.#log({ level: "error", message: `resource ${what} of ${uri} threw`, error });
    }
  }
}
