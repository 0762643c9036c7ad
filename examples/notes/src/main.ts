import { createRedisEngine } from "@toolsmith/redis";
import { listen } from "@toolsmith/transport-http";
import { releaseStdout, serveStdio } from "@toolsmith/transport-stdio";
import { Notes } from "./notes.js";

// --http: Streamable HTTP at http://127.0.0.1:$PORT/mcp (default 3000), said on stderr; else stdio.
const http = process.argv.includes("--http");
// Over HTTP, REDIS_URL makes this one of many processes sharing Redis (its sessions and its store), all sealing
// with TOOLSMITH_STATE_KEY; TOOLSMITH_LEASE_MS shortens the engine's lease on running requests (the tests do).
const { REDIS_URL, TOOLSMITH_STATE_KEY, TOOLSMITH_LEASE_MS } = http ? process.env : {};
const leaseMs = TOOLSMITH_LEASE_MS ? { leaseMs: Number(TOOLSMITH_LEASE_MS) } : {};
const cluster = {
  ...(REDIS_URL ? { engine: createRedisEngine({ url: REDIS_URL, ...leaseMs }) } : {}),
  ...(TOOLSMITH_STATE_KEY ? { stateKey: TOOLSMITH_STATE_KEY } : {}),
};
const server = new Notes(
  [
    { title: "Groceries", body: "milk, eggs, bread", tags: ["errands"] },
    { title: "Wiretap", body: "show the wire to the model", tags: ["ideas", "mcp"] },
  ],
  cluster,
);
if (http) {
  releaseStdout();
  await listen(server);
} else serveStdio(server);
