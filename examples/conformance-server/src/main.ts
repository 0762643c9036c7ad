import { createRedisEngine } from "@toolsmith/redis";
import { listen } from "@toolsmith/transport-http";
import { releaseStdout, serveStdio } from "@toolsmith/transport-stdio";
import { ConformanceServer } from "./conformance-server.js";
import { addJsonSchemaTool, skillsOnDisk } from "./node-fixtures.js";

// --http: Streamable HTTP at http://127.0.0.1:$PORT/mcp (default 3000), said on stderr; else stdio.
const http = process.argv.includes("--http");
// Over HTTP, REDIS_URL makes this one of many processes sharing Redis, all sealing with TOOLSMITH_STATE_KEY.
const { REDIS_URL, TOOLSMITH_STATE_KEY } = http ? process.env : {};
const cluster = {
  ...(REDIS_URL ? { engine: createRedisEngine({ url: REDIS_URL }) } : {}),
  ...(TOOLSMITH_STATE_KEY ? { stateKey: TOOLSMITH_STATE_KEY } : {}),
};
const server = new ConformanceServer({ watchIntervalMs: 3000, server: cluster, skills: skillsOnDisk() });
addJsonSchemaTool(server.toServer());
if (http) {
  releaseStdout();
  await listen(server);
} else serveStdio(server);
