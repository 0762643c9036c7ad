// The engine's cost: Toolsmith on the memory engine (the default) vs on the Redis engine vs the official SDK v2,
// over Streamable HTTP, 2025-11-25 sessions and 2026-07-28 with a listen stream open; then a soak of the Redis
// engine. Starts its own redis-server (Debian's, on a free port, in a temp dir) and stops it.
// Usage: node bench/engine.mjs [any bench/http.mjs option: --rounds 3 --requests 20000 --seconds 60 …]
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const argv = process.argv.slice(2);
const own = argv[0] === "--" ? argv.slice(1) : argv;

function freePort() {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/** redis-server as the fault model has it (append-only file, fsync every second), ready when it says so. */
async function startRedis() {
  const dir = mkdtempSync(join(tmpdir(), "toolsmith-bench-redis-"));
  const port = await freePort();
  const args = ["--port", String(port), "--bind", "127.0.0.1", "--dir", dir, "--save", ""];
  args.push("--appendonly", "yes", "--appendfsync", "everysec");
  const child = spawn("redis-server", args, { stdio: ["ignore", "pipe", "inherit"] });
  await new Promise((resolve, reject) => {
    let seen = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk) => {
      seen += chunk;
      if (seen.includes("Ready to accept connections")) resolve();
    });
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`redis-server exited (${code}) before it was ready:\n${seen}`)));
  });
  return {
    url: `redis://127.0.0.1:${port}`,
    async stop() {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

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
  const code = await new Promise((resolve) => {
    const child = spawn(process.execPath, args, {
      stdio: "inherit",
      env: { ...process.env, BENCH_REDIS_URL: redis.url },
    });
    child.once("exit", resolve);
  });
  process.exitCode = code ?? 1;
} finally {
  await redis.stop();
}
