// Installed when the package is imported, not when serveStdio runs: a console.log at the top level of a
// server's main module would otherwise reach the wire. A program that turns out not to serve stdio (an HTTP
// server, a CLI printing --help) lifts it with releaseStdout().
import { redirectStdout } from "./stdout-redirect.js";

const redirect = redirectStdout(process.stdout, process.stderr);

/**
 * Lift the redirect that importing this package put on stdout, for a program that will not serve over stdio after
 * all. serveStdio's own redirect, while it serves, is not affected.
 * @example
 * ```ts source="examples/stdio.ts#releaseStdout"
 * if (process.argv.includes("--http")) releaseStdout();
 * ```
 */
export function releaseStdout(): void {
  redirect.restore();
}
