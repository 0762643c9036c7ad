import { listen } from "@toolsmith/transport-http";
import { releaseStdout, serveStdio } from "@toolsmith/transport-stdio";
import { ConformanceServer } from "./conformance-server.js";

const server = new ConformanceServer({ watchIntervalMs: 3000 });
// --http: Streamable HTTP at http://127.0.0.1:$PORT/mcp (default 3000, the suite's wire), said on stderr; else stdio.
if (process.argv.includes("--http")) {
  releaseStdout();
  await listen(server);
} else serveStdio(server);
