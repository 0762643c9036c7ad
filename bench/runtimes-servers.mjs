// The servers of bench/runtimes.mjs: one Toolsmith server with the `add` tool, served by Node, Bun, Deno and workerd
// (a bundled module Worker under miniflare), each run from the binary its npm package brings; and how one starts.
import { spawn, spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { rawConnection } from "./http-client.mjs";

export const ERAS = ["2026-07-28", "2025-11-25"];
export const NODE = "Node: listen";
export const WORKER = "workerd: module Worker (miniflare)";
export const WORKERD = "workerd: module Worker (workerd serve)";

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const require = createRequire(import.meta.url);

// The runtimes' own binaries, from the npm packages that carry them (the packages' bin entries are Node wrappers or,
// without their install scripts, placeholders: a wrapper's Node start would count in the cold start).
function binaryOf(wrapper, platformPackage, file) {
  const from = createRequire(require.resolve(`${wrapper}/package.json`));
  return join(dirname(from.resolve(`${platformPackage}/package.json`)), file);
}
const BUN = binaryOf("bun", `@oven/bun-${process.platform}-${process.arch === "arm64" ? "aarch64" : "x64"}`, "bin/bun");
const DENO = binaryOf(
  "deno",
  `@deno/${process.platform}-${process.arch}${process.platform === "linux" ? "-glibc" : ""}`,
  "deno",
);

// workerd's own binary, as miniflare runs it.
const WORKERD_BIN = (() => {
  const main = require(createRequire(require.resolve("miniflare")).resolve("workerd"));
  return main.default ?? main;
})();

/** The runtimes' versions, for the report. */
export function versions() {
  const versionOf = (binary) => spawnSync(binary, ["--version"], { encoding: "utf8" }).stdout.trim().split("\n")[0];
  const packageVersion = (file) => JSON.parse(readFileSync(file, "utf8")).version;
  return {
    node: process.versions.node,
    bun: versionOf(BUN),
    deno: versionOf(DENO).replace(/ \(.*/, ""),
    workerd: packageVersion(createRequire(require.resolve("miniflare")).resolve("workerd/package.json")),
    miniflare: packageVersion(require.resolve("miniflare/package.json")),
  };
}

// The Worker, bundled as a deploy would: ESM, minified, for workerd. The built transport-http is one module, whose
// Node door (listen) imports node:http and node:stream: here they resolve to empty modules, so that the Worker runs
// without nodejs_compat, and a Node API on the web door's path would throw.
const noNode = {
  name: "no-node-builtins",
  setup(on) {
    on.onResolve({ filter: /^node:/ }, (args) => ({ path: args.path, namespace: "no-node" }));
    on.onLoad({ filter: /.*/, namespace: "no-node" }, () => ({ contents: "module.exports = {};", loader: "js" }));
  },
};

/** Every server, the Worker bundled into `scratch` (a folder of the run's own; Deno's caches go there too). */
export async function runtimeServers(scratch) {
  const bundle = join(scratch, "worker.mjs");
  await build({
    entryPoints: [here("./servers/runtime-worker.mjs")],
    bundle: true,
    minify: true,
    format: "esm",
    platform: "browser",
    conditions: ["workerd", "worker", "browser"],
    plugins: [noNode],
    outfile: bundle,
    logLevel: "error",
  });
  // Deno keeps its caches (its code cache among them) in DENO_DIR: the run's own, warmed by a discarded start.
  const env = { ...process.env, DENO_DIR: join(scratch, "deno") };
  const deno = [DENO, "run", "--quiet", "--no-lock", "--allow-net=127.0.0.1", "--allow-read", "--allow-env"];
  // The same Worker under workerd alone (no miniflare): a config of one service and one socket on a free port,
  // which workerd tells on its control fd.
  const config = join(scratch, "worker.capnp");
  writeFileSync(
    config,
    `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [(name = "main", worker = .main)],
  sockets = [(name = "http", address = "127.0.0.1:0", http = (), service = "main")],
);
const main :Workerd.Worker = (
  modules = [(name = "worker.mjs", esModule = embed "worker.mjs")],
  compatibilityDate = "2026-07-28",
);
`,
  );
  const web = here("./servers/runtime-web.mjs");
  const listen = here("./servers/http-toolsmith.mjs");
  return [
    { name: NODE, command: [process.execPath, listen], eras: ERAS },
    { name: "Node: createHttpHandler on node:http", command: [process.execPath, web], eras: ERAS },
    { name: "Bun: Bun.serve", command: [BUN, web], eras: ERAS },
    { name: "Bun: listen", command: [BUN, listen], eras: ERAS },
    { name: "Deno: Deno.serve", command: [...deno, web], eras: ERAS, env },
    { name: "Deno: listen", command: [...deno, listen], eras: ERAS, env },
    {
      name: WORKER,
      command: [process.execPath, here("./servers/runtime-miniflare.mjs"), "--bundle", bundle],
      eras: ["2026-07-28"],
      workerd: true,
    },
    { name: WORKERD, command: [WORKERD_BIN, "serve", config, "--control-fd=3"], eras: ["2026-07-28"], control: true },
  ];
}

/** The command name of process `pid`, or undefined once it is gone. */
function nameOf(pid) {
  try {
    return readFileSync(`/proc/${pid}/comm`, "utf8").trim();
  } catch {
    return undefined;
  }
}

/** The pid of `pid`'s descendant named `name` (workerd under miniflare's Node), from /proc. */
function descendant(pid, name) {
  const children = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter(Boolean);
  for (const child of children.map(Number)) {
    if (nameOf(child) === name) return child;
    const deeper = descendant(child, name);
    if (deeper) return deeper;
  }
  return undefined;
}

/**
 * A spawned server (on core 0 with `pin`), its URL read off the "listening on" line it writes; `cpuPid` is the
 * process that serves (workerd's under miniflare), `child` the one spawned.
 */
export async function start(server, { pin }) {
  const spawnedAt = performance.now();
  // workerd serve says its port on fd 3 (--control-fd), as JSON; the others say their URL on stdout.
  const args = server.control ? server.command : [...server.command, "--port", "0"];
  const [command, rest] = pin ? ["taskset", ["-c", "0", ...args]] : [args[0], args.slice(1)];
  const stdio = server.control ? ["ignore", "ignore", "inherit", "pipe"] : ["ignore", "pipe", "inherit"];
  const child = spawn(command, rest, { stdio, env: server.env ?? process.env });
  let seen = "";
  const said = await new Promise((resolve, reject) => {
    const from = child.stdio[server.control ? 3 : 1];
    from.setEncoding("utf8");
    from.on("data", (chunk) => {
      seen += chunk;
      const port = /"port":(\d+)/.exec(seen);
      if (port) resolve(`listening on http://127.0.0.1:${port[1]}/mcp\n`);
      if (/listening on http:\/\/\S+.*\n/.test(seen)) resolve(seen);
    });
    child.once("exit", (code) => reject(new Error(`${server.name} exited (${code}) before listening`)));
  });
  const listeningAt = performance.now();
  const url = new URL(/listening on (http:\/\/\S+)/.exec(said)[1]);
  const workerdAskedAt = Number(/workerd asked for at ([\d.]+)/.exec(said)?.[1] ?? Number.NaN);
  const cpuPid = server.workerd ? descendant(child.pid, "workerd") : child.pid;
  const sockets = [];
  const s = {
    child,
    url,
    cpuPid,
    spawnedAt,
    listeningAt,
    workerdAskedAt,
    connect() {
      const connection = rawConnection(url);
      sockets.push(connection.socket);
      return connection;
    },
    async stop() {
      for (const socket of sockets) socket.destroy();
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once("exit", resolve));
        child.kill("SIGTERM");
        const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
        await exited;
        clearTimeout(timer);
      }
      // miniflare ends its workerd on SIGTERM; a workerd it left behind is ended here (its pid, read at start).
      if (cpuPid && cpuPid !== child.pid && nameOf(cpuPid) === "workerd") process.kill(cpuPid, "SIGKILL");
    },
  };
  if (!cpuPid) {
    await s.stop();
    throw new Error(`${server.name}: no workerd process under ${child.pid}`);
  }
  return s;
}
