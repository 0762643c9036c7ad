// The two failures every role may raise: the store out of reach (any method, any role), and a fenced write for work
// this process no longer holds (`EventLog.append` and `TaskStore.changeTask` with `running`).

/** The seconds a client is told to wait when the engine's store is out of reach and nothing said otherwise. */
export const DEFAULT_RETRY_AFTER_SECONDS = 2;

/** The engine's store could not be reached (or answered too late): a transport answers 503 with `Retry-After`. */
export class EngineUnavailable extends Error {
  readonly retryAfterSeconds: number;
  constructor(message: string, options?: { cause?: unknown; retryAfterSeconds?: number }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = "EngineUnavailable";
    this.retryAfterSeconds = options?.retryAfterSeconds ?? DEFAULT_RETRY_AFTER_SECONDS;
  }
}

/**
 * A write for work this process no longer holds (its lease lapsed and another process claimed the work, or it
 * finished it): nothing was written, so the work has one outcome, the claimer's.
 */
export class LeaseLost extends Error {
  constructor(message: string) {
    super(message);
    this.name = "LeaseLost";
  }
}

/** True for a `LeaseLost`, also from another copy of this package. */
export function isLeaseLost(error: unknown): error is LeaseLost {
  return error instanceof LeaseLost || (error instanceof Error && error.name === "LeaseLost");
}

/** True for an `EngineUnavailable`, also from another copy of this package. */
export function isEngineUnavailable(error: unknown): error is EngineUnavailable {
  return (
    error instanceof EngineUnavailable ||
    (error instanceof Error &&
      error.name === "EngineUnavailable" &&
      typeof (error as EngineUnavailable).retryAfterSeconds === "number")
  );
}
