/** What `toolsmith` exits with. */
export const EXIT = {
  /** Done. */
  ok: 0,
  /** A tool returned `isError`, the server answered with an error, or the command failed. */
  failed: 1,
  /** Bad usage: an unknown option, a missing or malformed argument. */
  usage: 2,
  /** Could not start, reach or initialize the server, or it went away (a stdio server that exited, HTTP 502/503/504). */
  connect: 3,
  /** Stopped by Ctrl-C (a running task was cancelled). */
  interrupted: 130,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** An error the CLI reports in one line and exits with `code`. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly code: ExitCode = EXIT.failed,
  ) {
    super(message);
    this.name = "CliError";
  }
}

/** A bad argument: exit 2. */
export function usage(message: string): CliError {
  return new CliError(message, EXIT.usage);
}
