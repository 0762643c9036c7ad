import type { RequestLeases, RunningRequest } from "./request-leases.js";

/**
 * The memory engine's `RequestLeases`, and its leases on tasks (`TaskStore.taskRunning`): what this process runs, the
 * one thing its fenced writes are checked against. One process: nothing is ever orphaned.
 */
export class MemoryLeases implements RequestLeases {
  // session → request → what runs.
  readonly #requests = new Map<string, Map<string, RunningRequest>>();
  // The tasks this process runs (taskRunning until taskFinished).
  readonly #tasks = new Set<string>();

  running(request: RunningRequest): void {
    let requests = this.#requests.get(request.session);
    if (!requests) {
      requests = new Map();
      this.#requests.set(request.session, requests);
    }
    requests.set(request.request, request);
  }

  finished(session: string, request: string): void {
    const requests = this.#requests.get(session);
    requests?.delete(request);
    if (requests?.size === 0) this.#requests.delete(session);
  }

  onOrphan(_listener: (request: RunningRequest) => void): () => void {
    // One process: a request's owner stops only with the engine itself, so no request is ever orphaned.
    return () => {};
  }

  /** Whether this process runs `request` of `session` (a fenced append's check). */
  holds(session: string, request: string): boolean {
    return this.#requests.get(session)?.has(request) === true;
  }

  /** The session ended: nothing of it runs any more. */
  ended(session: string): void {
    this.#requests.delete(session);
  }

  taskRunning(id: string): void {
    this.#tasks.add(id);
  }

  taskFinished(id: string): void {
    this.#tasks.delete(id);
  }

  /** Whether this process runs the task (a fenced change's check). */
  runsTask(id: string): boolean {
    return this.#tasks.has(id);
  }

  clear(): void {
    this.#requests.clear();
    this.#tasks.clear();
  }
}
