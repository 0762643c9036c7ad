// Installed when the package is imported, not when serveStdio runs: a console.log at the top level of a
// server's main module would otherwise reach the wire. Never restored: the process is a stdio server now.
import { guardStdout } from "./stdout-guard.js";

guardStdout(process.stdout, process.stderr);
