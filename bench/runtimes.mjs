// The same one-tool Toolsmith HTTP server on Node, Bun, Deno and workerd, side by side in one run: cold start (from
// spawning the process until the reply to its first tools/call) and tools/call throughput over Streamable HTTP.
// Usage: node bench/runtimes.mjs [--rounds 3 --requests 10000 --starts 5 --only "Node: listen,Bun: Bun.serve"]
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { cpuSeconds, drive, openLane, status } from "./http-load.mjs";
import { benchOptions } from "./options.mjs";
import { ERAS, NODE, runtimeServers, start as startServer, versions, WORKER } from "./runtimes-servers.mjs";

const {
  values,
  only: ONLY,
  extra,
} = benchOptions(
  {
    requests: { type: "string", default: "10000" },
    warmup: { type: "string", default: "2000" },
    connections: { type: "string", default: "50" },
    // Cold starts per server and round (the round's figure is their median).
    starts: { type: "string", default: "5" },
  },
  { rounds: "3" },
);
if (values.profile) throw new Error("--profile: not for this bench (Bun, Deno and workerd take no --cpu-prof)");
const ROUNDS = Number(values.rounds);
const REQUESTS = Number(values.requests);
const WARMUP = Number(values.warmup);
const CONNECTIONS = Number(values.connections);
const STARTS = Number(values.starts);

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const ERA_LABEL = { "2026-07-28": "2026-07-28 stateless", "2025-11-25": "2025-11-25 session" };
const VERSIONS = versions();
const scratch = mkdtempSync(join(tmpdir(), "toolsmith-runtimes-"));
const SERVERS = await runtimeServers(scratch);
// --with "name=path": another Node server file taking --port, side by side.
for (const { name, file } of extra) SERVERS.push({ name, command: [process.execPath, file], eras: ERAS });
// Node: listen is always kept: every ratio is to it.
const MEASURED = SERVERS.filter((server) => !ONLY || server.name === NODE || ONLY.includes(server.name));

// With taskset, the server runs on core 0 and this load generator on core 1.
const PIN = spawnSync("taskset", ["-cp", "1", String(process.pid)], { stdio: "ignore" }).status === 0;
const start = (server) => startServer(server, { pin: PIN });

/** One cold start: spawn, then a 2026-07-28 tools/call as soon as the server says its URL; times in ms. */
async function coldStart(server) {
  const s = await start(server);
  try {
    await drive(s, [await openLane(s, "2026-07-28")], { count: 1 });
    const repliedAt = performance.now();
    return {
      listening: s.listeningAt - s.spawnedAt,
      first: repliedAt - s.spawnedAt,
      // workerd's own share: from miniflare's `new Miniflare()` (after Node's boot and miniflare's import).
      fromWorkerd: performance.timeOrigin + repliedAt - s.workerdAskedAt,
    };
  } finally {
    await s.stop();
  }
}

async function throughput(server, era) {
  const s = await start(server);
  try {
    const lanes = [];
    for (let i = 0; i < CONNECTIONS; i++) lanes.push(await openLane(s, era));
    await drive(s, lanes, { count: WARMUP, first: 1_000_000 });
    const load = loadavg()[0];
    const t0 = performance.now();
    const cpu0 = cpuSeconds(s.cpuPid);
    // Under miniflare, its Node process too (it takes no part in a request, so it should stay near 0).
    const launcher0 = cpuSeconds(s.child.pid);
    const own0 = process.cpuUsage();
    await drive(s, lanes, { count: REQUESTS });
    const seconds = (performance.now() - t0) / 1000;
    const cpu = cpuSeconds(s.cpuPid) - cpu0;
    const own = process.cpuUsage(own0);
    const launcherCpu = s.cpuPid === s.child.pid ? 0 : (cpuSeconds(s.child.pid) - launcher0) / seconds;
    return {
      rate: REQUESTS / seconds,
      serverCpu: cpu / seconds,
      perCpu: REQUESTS / cpu,
      launcherCpu,
      clientCpu: (own.user + own.system) / 1e6 / seconds,
      peak: status(s.cpuPid).peak,
      load,
    };
  } finally {
    await s.stop();
  }
}

const median = (list) => [...list].sort((x, y) => x - y)[Math.floor(list.length / 2)];
const push = (map, key, result) => {
  const entry = map.get(key) ?? {};
  for (const [field, value] of Object.entries(result)) entry[field] = [...(entry[field] ?? []), value];
  map.set(key, entry);
};
const starts = new Map();
const rates = new Map();
const loadAtStart = loadavg();
try {
  // Discarded: one start of each server (the binaries into the page cache, Deno's code cache filled) and one pass of
  // load (the load generator's own JIT warm-up).
  for (const server of MEASURED) await coldStart(server);
  await throughput(MEASURED[0], ERAS[0]);
  for (let round = 1; round <= ROUNDS; round++) {
    // Every other round in the reverse order: a machine that speeds up or slows down favours no server.
    const servers = round % 2 === 0 ? [...MEASURED].reverse() : MEASURED;
    const sampled = new Map();
    for (let i = 0; i < STARTS; i++) {
      for (const server of servers) push(sampled, server.name, { ...(await coldStart(server)), load: loadavg()[0] });
    }
    for (const [name, entry] of sampled) {
      push(starts, name, Object.fromEntries(Object.entries(entry).map(([field, list]) => [field, median(list)])));
      process.stderr.write(
        `round ${round} ${name}: cold start ${median(entry.first).toFixed(0)} ms (listening ${median(entry.listening).toFixed(0)} ms), load ${median(entry.load).toFixed(2)}\n`,
      );
    }
    for (const era of ERAS) {
      for (const server of servers.filter((candidate) => candidate.eras.includes(era))) {
        const result = await throughput(server, era);
        push(rates, `${era} ${server.name}`, result);
        process.stderr.write(
          `round ${round} ${era} ${server.name}: ${result.rate.toFixed(0)} requests/s, server CPU ${(100 * result.serverCpu).toFixed(0)}% (${result.perCpu.toFixed(0)} per CPU-second), load generator CPU ${(100 * result.clientCpu).toFixed(0)}%, load ${result.load.toFixed(2)}\n`,
        );
      }
    }
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

const ms = (value) => `${value.toFixed(0)} ms`;
const ratio = (value, base) => `${(value / base).toFixed(2)}×`;
const load = (list) => `${Math.min(...list).toFixed(1)}–${Math.max(...list).toFixed(1)}`;
const lines = [
  `Node ${VERSIONS.node}, ${VERSIONS.bun.replace(/^(\d)/, "Bun $1")}, ${VERSIONS.deno}, workerd ${VERSIONS.workerd} (miniflare ${VERSIONS.miniflare}); ${PIN ? "server pinned to core 0, load generator to core 1; " : ""}medians of ${ROUNDS} interleaved rounds. Load: the 1-minute load average (\`uptime\`) while measured, the rounds' lowest–highest (${loadAtStart[0].toFixed(2)} when the run began; the machine has 2 cores).`,
  "",
  `Cold start: from spawning the process until the reply to a 2026-07-28 \`tools/call\` sent as soon as the server says its URL (the median of ${STARTS} starts per round); the runtimes' on-disk caches warm (a discarded start first). The Worker under miniflare counts Node's boot and miniflare's import too (in brackets: from miniflare's start of workerd); under \`workerd serve\` it runs alone, from a config of one service and one socket.`,
  "",
  "| server | says its URL | first reply | ÷ Node: listen | load |",
  "|---|---|---|---|---|",
];
const nodeStart = median(starts.get(NODE).first);
for (const server of MEASURED) {
  const s = starts.get(server.name);
  const first = median(s.first);
  const own = server.workerd ? ` (${ms(median(s.fromWorkerd))} from workerd's start)` : "";
  lines.push(
    `| ${server.name} | ${ms(median(s.listening))} | ${ms(first)}${own} | ${ratio(first, nodeStart)} | ${load(s.load)} |`,
  );
}
lines.push(
  "",
  `Throughput: ${CONNECTIONS} keep-alive connections with one \`tools/call\` each in flight (the raw client of bench/http.mjs), ${REQUESTS} timed after ${WARMUP} warm-up, every reply checked. Server CPU: the share of one core its process used (the Worker's: workerd's process); a server well under 100% was kept waiting (by the other work on the machine, or by a load generator near 100%), and its requests per CPU-second are the steadier figure.`,
  "",
  "| era | server | requests/s | ÷ Node: listen | server CPU | requests per server CPU-second | ÷ Node: listen | load-generator CPU | peak RSS | load |",
  "|---|---|---|---|---|---|---|---|---|---|",
);
for (const era of ERAS) {
  const base = rates.get(`${era} ${NODE}`);
  for (const server of MEASURED) {
    const r = rates.get(`${era} ${server.name}`);
    if (!r) {
      lines.push(`| ${ERA_LABEL[era]} | ${server.name} | not served: a Worker keeps no session | | | | | | | |`);
      continue;
    }
    lines.push(
      `| ${ERA_LABEL[era]} | ${server.name} | ${median(r.rate).toFixed(0)} | ${ratio(median(r.rate), median(base.rate))} | ${(100 * median(r.serverCpu)).toFixed(0)}% | ${median(r.perCpu).toFixed(0)} | ${ratio(median(r.perCpu), median(base.perCpu))} | ${(100 * median(r.clientCpu)).toFixed(0)}% | ${median(r.peak).toFixed(0)} MB | ${load(r.load)} |`,
    );
  }
}
const launcher = rates.get(`2026-07-28 ${WORKER}`)?.launcherCpu;
if (launcher) {
  lines.push(
    "",
    `miniflare's Node process used ${(100 * median(launcher)).toFixed(1)}% of a core beside workerd while measured.`,
  );
}
const report = lines.join("\n");
mkdirSync(here("./results"), { recursive: true });
writeFileSync(here("./results/runtimes-latest.md"), `${report}\n`);
writeFileSync(
  here("./results/runtimes-latest.json"),
  JSON.stringify({ versions: VERSIONS, starts: Object.fromEntries(starts), rates: Object.fromEntries(rates) }),
);
process.stdout.write(`${report}\n`);
