import type { ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import type { Client } from "@modelcontextprotocol/client";
import { type RoundRobinOptions, type RoundRobinProxy, startProxy } from "@toolsmith/example-cluster-proxy";
import { type RedisServer, startRedis } from "@toolsmith/redis/testing";
import { end, exited } from "../../../scripts/child-processes.js";
import { spawnHttp } from "../../../scripts/spawn-http.js";
import { until } from "../../../scripts/wait.js";
import type { Mode } from "./peer.js";

/** An example's built entry point, from the repository root (build first: `npx -y pnpm@12.4.2 run build`). */
export const example = (name: string) =>
  fileURLToPath(new URL(`../../../examples/${name}/dist/main.js`, import.meta.url));

/** One process of the server: its own port, said on its stderr. */
export interface Backend {
  readonly child: ChildProcess;
  readonly url: string;
  /** What it wrote on stderr so far. */
  stderr(): string;
}

export interface ClusterOptions {
  /** The server's entry point (see `example`); started with `--http`. */
  readonly script: string;
  /** Default 3. */
  readonly processes?: number;
  /** More environment for every process (a short lease: `TOOLSMITH_LEASE_MS`). */
  readonly env?: Readonly<Record<string, string>>;
  /** The proxy's options (its health checks); it probes every 50 ms unless told otherwise. */
  readonly proxy?: Omit<RoundRobinOptions, "backends">;
}

/** A Redis of its own, N processes of one server sharing it and one state key, and a round-robin proxy in front. */
export interface Cluster {
  readonly redis: RedisServer;
  readonly proxy: RoundRobinProxy;
  /** What clients use: the proxy's MCP endpoint. */
  readonly url: string;
  readonly backends: Backend[];
  /** `kill -9` (the proxy finds out by itself); resolves once it exited. */
  kill(index: number): Promise<void>;
  /** Start process `index` again (a new port), resolved once the proxy's probe put it back in rotation. */
  restart(index: number): Promise<void>;
  /** Every process, the proxy and Redis stopped. */
  stop(): Promise<void>;
}

/**
 * Start a cluster; each process gets `REDIS_URL`, `TOOLSMITH_STATE_KEY` and `PORT=0`, and counts as up once it said
 * its URL. Stop it in `afterAll` (the test file's teardown also ends whatever is left).
 */
export async function startCluster(options: ClusterOptions): Promise<Cluster> {
  const redis = await startRedis();
  const env = {
    ...process.env,
    ...options.env,
    PORT: "0",
    REDIS_URL: redis.url,
    TOOLSMITH_STATE_KEY: randomBytes(32).toString("base64url"),
  };
  const launch = async (): Promise<Backend> => {
    const { child, url, stderr } = await spawnHttp([options.script, "--http"], { env });
    return { child, url, stderr };
  };
  const backends: Backend[] = [];
  try {
    // One after another: a busy machine starts them no faster side by side, and the logs stay readable.
    for (let index = 0; index < (options.processes ?? 3); index++) backends.push(await launch());
  } catch (error) {
    await Promise.all(backends.map((backend) => end(backend.child)));
    await redis.stop();
    throw error;
  }
  const proxy = await startProxy({
    healthIntervalMs: 50,
    ...options.proxy,
    backends: backends.map((backend) => backend.url),
  });
  return {
    redis,
    proxy,
    url: proxy.url,
    backends,
    async kill(index) {
      const backend = backends[index] as Backend;
      const exit = exited(backend.child, `process ${index} to die of SIGKILL`);
      backend.child.kill("SIGKILL");
      await exit;
    },
    async restart(index) {
      const backend = await launch();
      backends[index] = backend;
      proxy.replace(index, backend.url);
      await until(() => proxy.health()[index]?.up, `process ${index} back in the proxy's rotation`);
    },
    async stop() {
      await proxy.close();
      await Promise.all(backends.map((backend) => end(backend.child)));
      await redis.stop();
    },
  };
}

/**
 * Sends what every process answers in `mode` (a ping; 2026-07-28 has none, so one page of `tools/list`), one POST
 * at a time, until the proxy's next request goes to process `backend`. One POST a step, never `listTools()`: the
 * official client's `listTools()` fetches every page, and steps of k POSTs each never reach `backend` when k and the
 * processes in rotation share a factor (the travel desk's tools fill two pages: with one process of three killed,
 * the proxy went 2, 0, 2, 0 and steering to 0 never ended).
 */
export async function steerTo(cluster: Cluster, client: Client, mode: Mode, backend: number): Promise<void> {
  // Each POST moves the rotation on by one; a few turns more leave room for the client's own requests (a resumed
  // stream), so only a backend out of rotation gets this far.
  const most = 4 * cluster.backends.length;
  for (let sent = 0; cluster.proxy.peek() !== backend; sent++) {
    if (sent === most) {
      const health = JSON.stringify(cluster.proxy.health());
      throw new Error(`process ${backend} not reached in ${most} requests through the proxy; its health: ${health}`);
    }
    if (mode === "legacy") await client.ping();
    else await client.request({ method: "tools/list" });
  }
}
