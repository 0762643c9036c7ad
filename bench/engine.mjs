// The engine's cost: Toolsmith on the memory engine (the default) vs on the Redis engine vs the official SDK v2,
// over Streamable HTTP, 2025-11-25 sessions and 2026-07-28 with a listen stream open; then a soak of the Redis
// engine. Starts its own redis-server (Debian's, on a free port, in a temp dir) and stops it.
// Usage: node bench/engine.mjs [any bench/http.mjs option: --rounds 3 --requests 20000 --seconds 60 …]
import { fileURLToPath } from "node:url";
import { runWithRedis, startRedis } from "./redis.mjs";

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const argv = process.argv.slice(2);
const own = argv[0] === "--" ? argv.slice(1) : argv;

const redis = await startRedis();
try {
  const args = [
    here("./http.mjs"),
    "--with",
    `Toolsmith (Redis engine)=${here("./servers/http-toolsmith-redis.mjs")}`,
    "--only",
    "Toolsmith,Toolsmith (Redis engine),official SDK v2,official SDK v2 + sessions",
    "--soak",
    "Toolsmith (Redis engine)",
    "--listen",
    "--out",
    "engine-latest.md",
    ...own,
  ];
  process.exitCode = await runWithRedis(args, redis.url);
} finally {
  await redis.stop();
}
