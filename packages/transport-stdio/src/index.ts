// First, so stdout is redirected before any other module of this package runs.
import "./redirect-on-import.js";

export { type LineEvent, LineReader } from "./line-reader.js";
export { releaseStdout } from "./redirect-on-import.js";
export { type StdioConnection, type StdioOptions, serveStdio } from "./serve-stdio.js";
export { redirectStdout, type StdoutRedirect } from "./stdout-redirect.js";
export type { WireEntry } from "./tap.js";
