// Installed when the package is imported, not when serveStdio runs: a console.log at the top level of a
// server's main module would otherwise reach the wire. A program that turns out not to serve stdio (an HTTP
// server, a CLI printing --help) lifts it with releaseStdout().
import { guardStdout } from "./stdout-guard.js";

const guard = guardStdout(process.stdout, process.stderr);

/**
 * Lift the guard that importing this package put on stdout, for a program that will not serve over stdio after
 * all. serveStdio's own guard, while it serves, is not affected.
 * @example
 * ```ts source="examples/stdio.ts#releaseStdout"
 * if (process.argv.includes("--http")) releaseStdout();
 * ```
 */
export function releaseStdout(): void {
  guard.restore();
}
