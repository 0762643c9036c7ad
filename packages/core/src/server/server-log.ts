import type { ErrorReport, LogEntry, Logger } from "../context/logger.js";

// Where a server's log entries go: its logger, and each error to its error hook; a module with neither reports to
// the servers it is mounted in, whose transports installed theirs.

/** What hears a server's log: its logger, its error hook, else the servers it is mounted in. */
export class ServerLog {
  logger: Logger | undefined;
  onError: ((error: unknown, where: ErrorReport) => void) | undefined;
  readonly #parents: ReadonlySet<{ log(entry: LogEntry): boolean }>;

  constructor(
    logger: Logger | undefined,
    onError: ((error: unknown, where: ErrorReport) => void) | undefined,
    parents: ReadonlySet<{ log(entry: LogEntry): boolean }>,
  ) {
    this.logger = logger;
    this.onError = onError;
    this.#parents = parents;
  }

  /** Tell `entry`; whether anything heard it. */
  log(entry: LogEntry): boolean {
    let heard = false;
    try {
      if (this.logger) {
        heard = true;
        this.logger(entry);
      }
      if (entry.error !== undefined && this.onError) {
        heard = true;
        const where: ErrorReport = { method: entry.method ?? "(server)" };
        if (entry.requestId !== undefined) where.requestId = entry.requestId;
        if (entry.tool !== undefined) where.tool = entry.tool;
        this.onError(entry.error, where);
      }
    } catch {
      // A failing logger must not take a request down with it.
    }
    // A module with no log of its own reports to the servers it is mounted in, whose transports installed theirs.
    if (!heard) for (const parent of this.#parents) heard = parent.log(entry) || heard;
    return heard;
  }
}
