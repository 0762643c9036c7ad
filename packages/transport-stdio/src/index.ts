// First, so stdout is guarded before any other module of this package runs.
import "./guard-on-import.js";

export { releaseStdout } from "./guard-on-import.js";
export { type LineEvent, LineReader } from "./line-reader.js";
export { type StdioConnection, type StdioOptions, serveStdio } from "./serve-stdio.js";
export { guardStdout, type StdoutGuard } from "./stdout-guard.js";
export type { WireEntry } from "./tap.js";
