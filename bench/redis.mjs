// A redis-server of the bench's own (Debian's, on a free port, in a temp dir), for the Redis engine's benches.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

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
export async function startRedis() {
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
    pid: child.pid,
    async stop() {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Run `node <args>` (a bench/http.mjs run) with `BENCH_REDIS_URL` set to `url`: its exit code (1 when killed). */
export async function runWithRedis(args, url) {
  const { spawn } = await import("node:child_process");
  const code = await new Promise((resolve) => {
    const child = spawn(process.execPath, args, { stdio: "inherit", env: { ...process.env, BENCH_REDIS_URL: url } });
    child.once("exit", resolve);
  });
  return code ?? 1;
}
