import { listen } from "@toolsmith/transport-http";
import { releaseStdout, serveStdio } from "@toolsmith/transport-stdio";
import { Workbench } from "./workbench.js";

const server = new Workbench();
// --http: Streamable HTTP at http://127.0.0.1:$PORT/mcp (default 3000), said on stderr; else stdio.
if (process.argv.includes("--http")) {
  releaseStdout();
  await listen(server);
} else serveStdio(server);
