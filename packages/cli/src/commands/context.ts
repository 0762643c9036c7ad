import type { Command } from "commander";

/** What `main` gives each command. */
export interface CliContext {
  /** Whether colours are on (`--no-color`), known once commander has read the options. */
  color(): boolean;
  /** The code `toolsmith` exits with when the command is done (0 unless a command sets it). */
  setExitCode(code: number): void;
}

/**
 * Adds one command to the program. Through `program.command()`, not `addCommand`, so that it inherits the program's
 * exitOverride, help and error settings.
 */
export type CommandRegistration = (program: Command, cli: CliContext) => void;

/** What the command prints for its reader (or script). */
export const out = (text: string) => process.stdout.write(text);
/** What it says to the person (errors, status, where a snippet goes). */
export const err = (text: string) => process.stderr.write(text);
