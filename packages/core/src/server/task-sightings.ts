// Which handshake-era tasks a client has named since it was told of them. A client ties a question to a task it
// knows: one read in the same chunk as the reply that announces the task may be handled before that reply is (the
// official ext-tasks client then answers it `cancel`), and no server can choose how a pipe groups its writes. So a
// task's questions go to the connection that made it once that client has named the task (tasks/get, tasks/result,
// tasks/cancel): it knew the task when it sent that request.

/**
 * The longest a question waits for its client to name the task: a client that names it on another process of the
 * server (HTTP without affinity), or never, is asked after this, the reply long read by then.
 */
export const SIGHTING_WAIT_MS = 2_000;

/** The tasks waiting, on this process, for their client to name them: each until it does, or SIGHTING_WAIT_MS. */
export class TaskSightings {
  // By session and task id: what to do once that session names that task.
  readonly #waiting = new Map<string, () => void>();

  /**
   * Call `seen` once `session` names task `id` here, or SIGHTING_WAIT_MS from now, whichever comes first. Returns
   * a function that forgets the wait.
   */
  watch(session: string, id: string, seen: () => void): () => void {
    const key = keyOf(session, id);
    const forget = () => {
      clearTimeout(timer);
      if (this.#waiting.get(key) === done) this.#waiting.delete(key);
    };
    const done = () => {
      forget();
      seen();
    };
    const timer = setTimeout(done, SIGHTING_WAIT_MS);
    (timer as { unref?: () => void }).unref?.();
    this.#waiting.set(key, done);
    return forget;
  }

  /** `session` named task `id` in a request. */
  saw(session: string | undefined, id: unknown): void {
    if (session === undefined || typeof id !== "string") return;
    this.#waiting.get(keyOf(session, id))?.();
  }

  /** How many tasks wait to be named (for tests: none is left behind). */
  get waiting(): number {
    return this.#waiting.size;
  }
}

const keyOf = (session: string, id: string) => `${session}\n${id}`;
