import { createRedisEngine } from "@toolsmith/redis";
import { listen } from "@toolsmith/transport-http";
import { releaseStdout, serveStdio } from "@toolsmith/transport-stdio";
import { Wiretap } from "./wiretap.js";

// --http: Streamable HTTP at http://127.0.0.1:$PORT/mcp (default 3000), said on stderr; else stdio.
const http = process.argv.includes("--http");
// Over HTTP, REDIS_URL makes this one of many processes sharing Redis, all sealing with TOOLSMITH_STATE_KEY.
const { REDIS_URL, TOOLSMITH_STATE_KEY } = http ? process.env : {};
const cluster = {
  ...(REDIS_URL ? { engine: createRedisEngine({ url: REDIS_URL }) } : {}),
  ...(TOOLSMITH_STATE_KEY ? { stateKey: TOOLSMITH_STATE_KEY } : {}),
};
const server = new Wiretap(cluster);
if (http) {
  releaseStdout();
  await listen(server);
  // The tap is stdio's: over HTTP nothing is recorded, and show_wire says so to the model too.
  process.stderr.write("wiretap-mcp: show_wire only sees stdio traffic; over HTTP its transcript stays empty\n");
} else {
  serveStdio(server, { tap: server.record });
  process.stderr.write("wiretap-mcp: listening on stdio\n");
}
