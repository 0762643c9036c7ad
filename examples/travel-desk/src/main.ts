import { createRedisEngine } from "@toolsmith/redis";
import { listen } from "@toolsmith/transport-http";
import { releaseStdout, serveStdio } from "@toolsmith/transport-stdio";
import { TravelDesk } from "./travel-desk.js";

// --http: Streamable HTTP at http://127.0.0.1:$PORT/mcp (default 3000), said on stderr; else stdio.
if (process.argv.includes("--http")) {
  releaseStdout();
  // With REDIS_URL, one of many processes behind a load balancer: sessions, events and the desk's bookings (its
  // store) live in Redis, and every process seals 2026-07-28 state with the same TOOLSMITH_STATE_KEY.
  const { REDIS_URL, TOOLSMITH_STATE_KEY, TOOLSMITH_LEASE_MS } = process.env;
  const leaseMs = TOOLSMITH_LEASE_MS ? Number(TOOLSMITH_LEASE_MS) : undefined;
  const desk = new TravelDesk({
    server: {
      ...(REDIS_URL ? { engine: createRedisEngine({ url: REDIS_URL, ...(leaseMs ? { leaseMs } : {}) }) } : {}),
      ...(TOOLSMITH_STATE_KEY ? { stateKey: TOOLSMITH_STATE_KEY } : {}),
    },
  });
  await listen(desk);
} else serveStdio(new TravelDesk());
