// A tools/call forwarded by a gateway (@toolsmith/remote, the remote's tools registered unprefixed) against the same
// call made straight to the remote (servers/http-toolsmith.mjs), through a bare reverse proxy (one extra hop and
// nothing else, servers/http-proxy.mjs) and through a gateway written by hand on the official SDK v2, over Streamable
// HTTP, in both eras: each round starts a remote and the three in front of it and measures the four paths in turn,
// in another order each round. Usage:
// node bench/remote.mjs [--rounds 5 --calls 2000 --requests 10000 --connections 16 --era E --profile DIR]
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { rawConnection } from "./http-client.mjs";
import { cpuSeconds, drive, openLane, postAsync } from "./http-load.mjs";
import { benchOptions } from "./options.mjs";

const { values, profile: PROFILE } = benchOptions(
  {
    // Sequential calls, one in flight, for latency.
    calls: { type: "string", default: "2000" },
    // Calls for throughput, one in flight per connection.
    requests: { type: "string", default: "10000" },
    connections: { type: "string", default: "16" },
    warmup: { type: "string", default: "500" },
    era: { type: "string" },
  },
  { rounds: "5" },
);
const ROUNDS = Number(values.rounds);
const CALLS = Number(values.calls);
const REQUESTS = Number(values.requests);
const CONNECTIONS = Number(values.connections);
const WARMUP = Number(values.warmup);
const ERAS = ["2026-07-28", "2025-11-25"];
if (values.era !== undefined && !ERAS.includes(values.era)) throw new Error(`--era ${ERAS.join("|")}`);
const MEASURED_ERAS = values.era ? [values.era] : ERAS;
const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const REMOTE = here("./servers/http-toolsmith.mjs");
const GATEWAY = here("./servers/http-gateway.mjs");
const PROXY = here("./servers/http-proxy.mjs");
const SDK_GATEWAY = here("./servers/http-official-sdk.mjs");

// With taskset, the servers (remote and gateway) run on core 0 and this load generator on core 1.
const PIN = spawnSync("taskset", ["-cp", "1", String(process.pid)], { stdio: "ignore" }).status === 0;

/** A spawned server, up once it says its URL on stdout; under `--profile DIR`, profiled into DIR as `name`. */
async function start(file, args, name) {
  // servers/probe.mjs makes SIGTERM a normal exit, so that --cpu-prof writes its profile.
  const flags = PROFILE
    ? [
        "--import",
        here("./servers/probe.mjs"),
        "--cpu-prof",
        "--cpu-prof-dir",
        PROFILE,
        "--cpu-prof-name",
        `${name}.cpuprofile`,
      ]
    : [];
  const full = [...flags, file, "--port", "0", ...args];
  const command = PIN ? ["taskset", ["-c", "0", process.execPath, ...full]] : [process.execPath, full];
  const child = spawn(command[0], command[1], { stdio: ["ignore", "pipe", "inherit"] });
  let seen = "";
  const url = await new Promise((resolve, reject) => {
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk) => {
      seen += chunk;
      const listening = /listening on (http:\/\/\S+)/.exec(seen);
      if (listening) resolve(new URL(listening[1]));
    });
    child.once("exit", (code) => reject(new Error(`${file} exited (${code}) before listening`)));
  });
  const sockets = [];
  return {
    url,
    pid: child.pid,
    connect() {
      const connection = rawConnection(url);
      sockets.push(connection.socket);
      return connection;
    },
    async stop() {
      for (const socket of sockets) socket.destroy();
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    },
  };
}

/** Latency of `CALLS` calls one after another (each reply checked), as median and p99 in ms. */
async function latency(s, era) {
  const lane = await openLane(s, era);
  await drive(s, [lane], { count: WARMUP, first: 2_000_000 });
  const times = [];
  for (let a = 0; a < CALLS; a++) {
    const t0 = performance.now();
    const { response, text } = await postAsync(s, lane, lane.body(a));
    times.push(performance.now() - t0);
    if (response.statusCode !== 200 || !text.includes(`"text":"${a + 1}"`)) {
      throw new Error(`bad reply to call ${a}: ${response.statusCode} ${text}`);
    }
  }
  times.sort((x, y) => x - y);
  return { median: times[Math.floor(times.length / 2)], p99: times[Math.floor(times.length * 0.99)] };
}

/**
 * Calls per second with `CONNECTIONS` lanes, one call in flight each, and the CPU milliseconds each process in
 * `processes` spent per call meanwhile (for the gateway path: the gateway's own work, and the remote's).
 */
async function throughput(s, era, processes) {
  const lanes = [];
  for (let i = 0; i < CONNECTIONS; i++) lanes.push(await openLane(s, era));
  await drive(s, lanes, { count: WARMUP, first: 1_000_000 });
  const cpu0 = processes.map((p) => cpuSeconds(p.pid));
  const t0 = performance.now();
  await drive(s, lanes, { count: REQUESTS });
  const rate = REQUESTS / ((performance.now() - t0) / 1000);
  const cpuMs = processes.map((p, i) => ((cpuSeconds(p.pid) - cpu0[i]) * 1000) / REQUESTS);
  return { rate, cpuMs };
}

const median = (list) => [...list].sort((x, y) => x - y)[Math.floor(list.length / 2)];
const results = new Map(); // era → { direct, proxy, gateway, sdk, ratio }: one entry per round each
const loads = [];
for (let round = 1; round <= ROUNDS; round++) {
  for (const era of MEASURED_ERAS) {
    const remote = await start(REMOTE, [], `remote-${era}-round${round}`);
    const gateway = await start(
      GATEWAY,
      ["--remote", remote.url.href, "--era", era === "2026-07-28" ? "2026-07-28" : "legacy"],
      `gateway-${era}-round${round}`,
    );
    const proxy = await start(PROXY, ["--remote", remote.url.href], `proxy-${era}-round${round}`);
    const sdk = await start(
      SDK_GATEWAY,
      ["--remote", remote.url.href, "--era", era === "2026-07-28" ? "2026-07-28" : "legacy"],
      `sdk-gateway-${era}-round${round}`,
    );
    try {
      // Each round the paths in another order: a machine that speeds up or slows down favours none.
      const paths = [
        ["direct", remote],
        ["proxy", proxy],
        ["gateway", gateway],
        ["sdk", sdk],
      ];
      for (let turn = 0; turn < round - 1; turn++) paths.push(paths.shift());
      const measured = {};
      for (const [name, s] of paths) {
        const { rate, cpuMs } = await throughput(s, era, name === "direct" ? [remote] : [s, remote]);
        measured[name] = { ...(await latency(s, era)), rate, cpuMs };
      }
      loads.push(loadavg()[0]);
      const { direct, proxy: hop, gateway: through } = measured;
      const ratio = {
        latency: through.median / direct.median,
        // What a bare reverse proxy adds: one extra hop on this machine.
        hopMs: hop.median - direct.median,
        extraHops: (through.median - direct.median) / (hop.median - direct.median),
        extraCalls: (through.median - direct.median) / direct.median,
        // Against a gateway written by hand on the official SDK v2 (server and client).
        sdkLatency: measured.sdk.median / through.median,
        sdkRate: through.rate / measured.sdk.rate,
        rate: through.rate / direct.rate,
      };
      const entry = results.get(era) ?? { direct: [], proxy: [], gateway: [], sdk: [], ratio: [] };
      entry.direct.push(direct);
      entry.gateway.push(through);
      entry.ratio.push(ratio);
      entry.proxy.push(hop);
      entry.sdk.push(measured.sdk);
      results.set(era, entry);
      process.stderr.write(
        `round ${round} ${era}: direct ${direct.median.toFixed(3)} ms, ${direct.rate.toFixed(0)}/s; proxy ${hop.median.toFixed(3)} ms (a hop: +${ratio.hopMs.toFixed(3)} ms); gateway ${through.median.toFixed(3)} ms (p99 ${through.p99.toFixed(3)}), ${through.rate.toFixed(0)}/s: extra ${ratio.extraHops.toFixed(2)} hops, throughput ×${ratio.rate.toFixed(2)} of direct; SDK gateway ${measured.sdk.median.toFixed(3)} ms, ${measured.sdk.rate.toFixed(0)}/s (Toolsmith ×${ratio.sdkRate.toFixed(1)}); CPU ms/call: remote ${direct.cpuMs[0].toFixed(3)}, proxy ${hop.cpuMs[0].toFixed(3)}, gateway ${through.cpuMs[0].toFixed(3)}, SDK gateway ${measured.sdk.cpuMs[0].toFixed(3)}; load ${loads.at(-1).toFixed(1)}\n`,
      );
    } finally {
      await sdk.stop();
      await proxy.stop();
      await gateway.stop();
      await remote.stop();
    }
  }
}

// The bar. "At most one extra hop" cannot hold on loopback: a hop there (a bare reverse proxy) costs little more
// than the remote's whole call, and a gateway is an MCP server on one side and an MCP client on the other, work a
// proxy never does. So the gateway's added latency is held to three hops, the hop it is and its own work on each
// side costing no more than one, and its throughput to twice that of the same gateway written by hand on the SDK v2.
const MAX_HOPS = 3;
const MIN_OVER_SDK = 2;
const lines = [
  `# A forwarded tools/call: gateway vs the remote straight`,
  "",
  `${ROUNDS} rounds, ${CALLS} sequential calls (latency) and ${REQUESTS} calls on ${CONNECTIONS} connections (throughput) per path, ${PIN ? "servers on core 0, load generator on core 1" : "not pinned"}; 1-minute load average ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)}.`,
  "Medians of the rounds. Four paths to the same remote: *direct*; through a bare node:http reverse proxy (*hop*: what one extra hop adds on this machine); through the Toolsmith gateway; through a gateway written by hand on the official SDK v2 (server and client, bench/servers/http-official-sdk.mjs --remote).",
  `*Extra hops*: (gateway − direct) / (proxy − direct) median latency; *own work*: the gateway's added latency beyond one hop. The bar: extra hops ≤ ${MAX_HOPS} and throughput ≥ ${MIN_OVER_SDK}× the SDK gateway's.`,
  "",
  "*CPU per call*: under the throughput load, CPU milliseconds per call of the remote called straight, and of the proxy and gateway processes alone (the remote's not counted).",
  "",
  "| era | direct ms | hop ms | gateway ms (p99) | extra hops | own work ms | SDK gateway ms | direct calls/s | gateway calls/s (× direct) | × SDK gateway | CPU ms/call: remote, proxy, gateway, SDK gateway | bar |",
  "|---|---|---|---|---|---|---|---|---|---|---|---|",
];
for (const [era, { direct, proxy, gateway, sdk, ratio }] of results) {
  const m = (list, field) => median(list.map((item) => item[field]));
  const extra = m(ratio, "extraHops");
  const overSdk = m(ratio, "sdkRate");
  const hop = m(ratio, "hopMs");
  const cpu = (list) => median(list.map((each) => each.cpuMs[0])).toFixed(3);
  lines.push(
    `| ${era} | ${m(direct, "median").toFixed(3)} | ${hop.toFixed(3)} | ${m(gateway, "median").toFixed(3)} (${m(gateway, "p99").toFixed(3)}) | ${extra.toFixed(2)} (rounds ${ratio.map((r) => r.extraHops.toFixed(2)).join(", ")}) | ${(m(gateway, "median") - m(direct, "median") - hop).toFixed(3)} | ${m(sdk, "median").toFixed(3)} | ${m(direct, "rate").toFixed(0)} | ${m(gateway, "rate").toFixed(0)} (${m(ratio, "rate").toFixed(2)}) | ${overSdk.toFixed(1)} | ${cpu(direct)}, ${cpu(proxy)}, ${cpu(gateway)}, ${cpu(sdk)} | ${extra <= MAX_HOPS && overSdk >= MIN_OVER_SDK ? "met" : "NOT met"} |`,
  );
}
const report = `${lines.join("\n")}\n`;
process.stdout.write(report);
mkdirSync(here("./results"), { recursive: true });
writeFileSync(here("./results/remote-latest.md"), report);
