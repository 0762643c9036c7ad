// HTTP fixture processes of one checkout (and a Redis of their own to share), started and stopped by the replay.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { load } from "./entries.mjs";
import { HttpPeer } from "./http-peer.mjs";
import { STOPPED } from "./transcript.mjs";
import { deadline } from "./wait.mjs";

const FIXTURE = fileURLToPath(new URL("./fixture.mjs", import.meta.url));

/** Start one HTTP fixture built from `checkout`; resolves once it said its URL. */
export function startHttp(checkout, redisUrl) {
  const args = [FIXTURE, checkout, "http", ...(redisUrl ? [redisUrl] : [])];
  const child = spawn(process.execPath, args, {
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, PORT: "0" },
  });
  let stderr = "";
  let listening = false;
  const limit = deadline();
  return new Promise((resolve, reject) => {
    const fail = (why) => {
      limit.clear();
      child.kill("SIGKILL");
      reject(new Error(`the HTTP fixture (${checkout}) ${why}: ${stderr}`));
    };
    limit.promise.then(() => fail(`said no URL in ${limit.ms} ms`));
    child.once("exit", (code) => fail(`exited (${code}) before listening`));
    child.stderr.setEncoding("utf8").on("data", (chunk) => {
      stderr += chunk;
      const url = /listening on (http:\/\/\S+)/.exec(stderr)?.[1];
      if (!url || listening) return;
      listening = true;
      limit.clear();
      child.removeAllListeners("exit");
      const exited = new Promise((done) => child.once("exit", done));
      resolve({
        url,
        stderr: () => stderr,
        async stop() {
          child.kill("SIGTERM");
          const late = deadline();
          if ((await Promise.race([exited, late.promise])) === "late") child.kill("SIGKILL");
          late.clear();
        },
      });
    });
  });
}

/** `count` fixtures from `checkout`, sharing a Redis of their own when `redis` is true; `stop()` ends them all. */
export async function startProcesses(checkout, count, options = {}) {
  let redis;
  if (options.redis) {
    // The tests' way: `startRedis` of the checkout's @toolsmith/redis/testing, no persistence, memory bounded.
    const { startRedis } = await load(options.redisFrom ?? checkout, "@toolsmith/redis/testing");
    redis = await startRedis({ appendonly: false, args: ["--maxmemory", "512mb"] });
  }
  const started = [];
  try {
    for (let i = 0; i < count; i++) started.push(await startHttp(checkout, redis?.url));
  } catch (error) {
    await Promise.all(started.map((one) => one.stop()));
    await redis?.stop();
    throw error;
  }
  return {
    urls: started.map((one) => one.url),
    stderr: () => started.map((one) => one.stderr()).join(""),
    async stop() {
      await Promise.all(started.map((one) => one.stop()));
      await redis?.stop();
    },
  };
}

/**
 * A scripted session over HTTP: `play` against `count` processes built from a checkout (sharing a Redis when
 * `redis`), every exchange kept in order; a script that stops early is recorded as stopped, and the processes end
 * either way.
 */
export function httpSession(name, play, count, { redis = false } = {}) {
  return {
    name,
    async run(checkout, options = {}) {
      const processes = await startProcesses(checkout, count, redis ? { redis, redisFrom: options.redisFrom } : {});
      const peer = new HttpPeer(processes.urls);
      try {
        await play(peer);
      } catch (error) {
        peer.exchanges.push({ label: STOPPED, error: String(error.message ?? error) });
      } finally {
        peer.closeAll();
        await processes.stop();
      }
      return { exchanges: peer.exchanges, stderr: processes.stderr(), urls: processes.urls };
    },
  };
}
