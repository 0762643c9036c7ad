import { listen } from "@toolsmith/transport-http";
import { releaseStdout, serveStdio } from "@toolsmith/transport-stdio";
import { IssueTracker } from "./issue-tracker.js";

const server = new IssueTracker();
// --http: Streamable HTTP at http://127.0.0.1:$PORT/mcp (default 3000), said on stderr; else stdio.
if (process.argv.includes("--http")) {
  releaseStdout();
  await listen(server);
} else serveStdio(server);
