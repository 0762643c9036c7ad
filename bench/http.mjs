// Toolsmith vs the official SDK v2 vs a bare node:http handler, over Streamable HTTP, interleaved in one run,
// then a memory soak of Toolsmith. Usage: node bench/http.mjs [--rounds 3 --requests 20000 --seconds 60]
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import http from "node:http";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { AUDIENCE, startIssuer } from "./auth-keys.mjs";
import { rawConnection } from "./http-client.mjs";
import { ACCEPT, cpuSeconds, drive, META, openLane, status } from "./http-load.mjs";
import { benchOptions } from "./options.mjs";

const {
  values,
  only: ONLY,
  profile: PROFILE,
  extra,
} = benchOptions(
  {
    requests: { type: "string", default: "30000" },
    warmup: { type: "string", default: "3000" },
    connections: { type: "string", default: "50" },
    // "http": node:http with a keep-alive Agent; "raw": a hand-rolled HTTP/1.1 client on node:net, leaner still.
    client: { type: "string", default: "raw" },
    // The Toolsmith memory soak; 0 skips it.
    seconds: { type: "string", default: "60" },
    // Which server the soak runs (default "Toolsmith").
    soak: { type: "string", default: "Toolsmith" },
    // Hold one 2026-07-28 subscriptions/listen stream open on each server while its 2026-07-28 calls are measured.
    listen: { type: "boolean", default: false },
    // The report's file name under bench/results.
    out: { type: "string", default: "http-latest.md" },
    // Also Toolsmith behind a bearer token verified by jwtVerifier (a local JWKS; a remote one), 2026-07-28 only.
    auth: { type: "boolean", default: false },
    // Measure one era only (2026-07-28 or 2025-11-25); both by default.
    era: { type: "string" },
  },
  { rounds: "3" },
);
const ROUNDS = Number(values.rounds);
const REQUESTS = Number(values.requests);
const WARMUP = Number(values.warmup);
const CONNECTIONS = Number(values.connections);
const SECONDS = Number(values.seconds);
const CLIENT = values.client;
const LISTEN = values.listen;
const AUTH = values.auth;
const SOAKED = values.soak;
// bench/engine.mjs adds Toolsmith on the Redis engine under this name, and gets its targets.
const REDIS = "Toolsmith (Redis engine)";
if (CLIENT !== "http" && CLIENT !== "raw") throw new Error(`--client http|raw, not ${CLIENT}`);

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const FLOOR = "bare node:http";
const OFFICIAL = "official SDK v2";
const OFFICIAL_SESSIONS = "official SDK v2 + sessions";
const ERAS = ["2026-07-28", "2025-11-25"];
const ERA_LABEL = { "2026-07-28": "2026-07-28 stateless", "2025-11-25": "2025-11-25 session" };
if (values.era !== undefined && !ERAS.includes(values.era))
  throw new Error(`--era ${ERAS.join("|")}, not ${values.era}`);
const MEASURED_ERAS = values.era ? [values.era] : ERAS;
const JWT_LOCAL = "Toolsmith + JWT (local JWKS)";
const JWT_REMOTE = "Toolsmith + JWT (remote JWKS)";
const SERVERS = [
  { name: FLOOR, file: here("./servers/http-bare.mjs"), args: [], eras: ERAS },
  { name: "Toolsmith", file: here("./servers/http-toolsmith.mjs"), args: [], eras: ERAS },
  // createMcpHandler as it comes: the 2026-07-28 path, and its stateless fallback for 2025 traffic (no session).
  { name: OFFICIAL, file: here("./servers/http-official-sdk.mjs"), args: ["--legacy", "stateless"], eras: ERAS },
  // The documented way to keep 2025 sessions: isLegacyRequest → a sessionful transport per session.
  {
    name: OFFICIAL_SESSIONS,
    file: here("./servers/http-official-sdk.mjs"),
    args: ["--legacy", "session"],
    eras: ["2025-11-25"],
  },
];
// Behind a bearer token: every request carries the issuer's token (the same one, as a client reuses its own).
const issuer = AUTH ? await startIssuer() : undefined;
if (issuer) {
  Object.assign(process.env, {
    BENCH_AUTH_ISSUER: issuer.url,
    BENCH_AUTH_AUDIENCE: AUDIENCE,
    BENCH_AUTH_JWKS: JSON.stringify(issuer.jwks),
    BENCH_AUTH_JWKS_URI: issuer.jwksUri,
  });
  const file = here("./servers/http-toolsmith-jwt.mjs");
  const eras = ["2026-07-28"];
  SERVERS.push({ name: JWT_LOCAL, file, args: ["--jwks", "local"], eras, bearer: true });
  SERVERS.push({ name: JWT_REMOTE, file, args: ["--jwks", "remote"], eras, bearer: true });
}
// With --auth, a --with server gets the bearer token too (another build of the JWT server, side by side).
for (const { name, file } of extra) SERVERS.push({ name, file, args: [], eras: ERAS, bearer: AUTH });
// --only "Toolsmith": measure just the named servers (the floor is always kept, as every ratio needs it).
const MEASURED = SERVERS.filter((server) => !ONLY || server.name === FLOOR || ONLY.includes(server.name));

// With taskset, the server runs on core 0 and this load generator on core 1: less scheduler noise.
const PIN = spawnSync("taskset", ["-cp", "1", String(process.pid)], { stdio: "ignore" }).status === 0;

const PROBE = here("./servers/probe.mjs");
let spawned = 0;

/**
 * A spawned server, its URL read off the "listening on" line it writes on stdout. `probe`: preload
 * servers/probe.mjs with `--expose-gc`, for `heap()` (also implied by --profile, for a clean exit on SIGTERM).
 */
async function start(server, { probe = false, label = "" } = {}) {
  const flags = probe || PROFILE ? ["--expose-gc", "--import", PROBE] : [];
  if (PROFILE) {
    const name = `${++spawned}-${server.name}-${label}`.replace(/[^\w.-]+/g, "-");
    flags.push("--cpu-prof", "--cpu-prof-dir", PROFILE, "--cpu-prof-name", `${name}.cpuprofile`);
  }
  const args = [...flags, server.file, "--port", "0", ...server.args];
  const command = PIN ? ["taskset", ["-c", "0", process.execPath, ...args]] : [process.execPath, args];
  const child = spawn(command[0], command[1], { stdio: ["ignore", "pipe", "inherit"] });
  let seen = "";
  let heapWaiter;
  const url = await new Promise((resolve, reject) => {
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk) => {
      seen += chunk;
      const listening = /listening on (http:\/\/\S+)/.exec(seen);
      if (listening) resolve(new URL(listening[1]));
      const heap = /heap (\d+)\n/.exec(seen);
      if (heap && heapWaiter) {
        seen = seen.slice(heap.index + heap[0].length);
        heapWaiter(Number(heap[1]) / 1024 / 1024);
        heapWaiter = undefined;
      }
    });
    child.once("exit", (code) => reject(new Error(`${server.name} exited (${code}) before listening`)));
  });
  seen = "";
  // One keep-alive socket per connection: each lane below has one request in flight at a time.
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const sockets = [];
  return {
    child,
    url,
    bearer: server.bearer ? `Bearer ${issuer.token}` : undefined,
    options: { agent, hostname: url.hostname, port: Number(url.port), path: url.pathname, method: "POST" },
    /** The heap in use after a full collection, in MB (with `probe`). */
    heap: () =>
      new Promise((resolve) => {
        heapWaiter = resolve;
        child.kill("SIGUSR2");
      }),
    connect() {
      const connection = CLIENT === "raw" ? rawConnection(url) : undefined;
      if (connection) sockets.push(connection.socket);
      return connection;
    },
    async stop() {
      agent.destroy();
      for (const socket of sockets) socket.destroy();
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * End each lane's session (DELETE), as a client that is done does: sessions kept in Redis outlive the process that
 * opened them, and the next rounds' would otherwise meet the per-caller limit on open sessions.
 */
function endLanes(s, lanes) {
  const ending = lanes
    .filter((lane) => lane.headers["mcp-session-id"])
    .map(
      (lane) =>
        new Promise((resolve) => {
          const request = http.request({ ...s.options, method: "DELETE", agent: false, headers: lane.headers }, (r) => {
            r.resume();
            r.on("end", resolve);
          });
          request.on("error", resolve);
          request.end();
        }),
    );
  return Promise.all(ending);
}

async function lanesFor(s, eraOf) {
  const lanes = [];
  for (let i = 0; i < CONNECTIONS; i++) lanes.push(await openLane(s, eraOf(i)));
  return lanes;
}

/**
 * A 2026-07-28 `subscriptions/listen` stream held open (to every list and to one resource), resolved once its
 * acknowledgement arrives: undefined when the server answers anything but a stream that says so.
 */
function openListen(s) {
  const meta = JSON.parse(META);
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id: "listen",
    method: "subscriptions/listen",
    params: {
      notifications: { toolsListChanged: true, resourceSubscriptions: ["bench://never-updated"] },
      _meta: meta,
    },
  });
  const headers = {
    "content-type": "application/json",
    accept: ACCEPT,
    "mcp-protocol-version": "2026-07-28",
    "mcp-method": "subscriptions/listen",
  };
  return new Promise((resolve) => {
    const request = http.request({ ...s.options, agent: false, headers }, (response) => {
      let seen = "";
      response.setEncoding("utf8");
      response.on("data", (chunk) => {
        seen += chunk;
        if (seen.includes("notifications/subscriptions/acknowledged")) resolve(request);
      });
      response.on("end", () => resolve(undefined));
    });
    request.on("error", () => resolve(undefined));
    request.end(body);
  });
}

async function throughput(server, era, label = era) {
  const s = await start(server, { label });
  let listening;
  let lanes = [];
  try {
    if (LISTEN && era === "2026-07-28") {
      listening = await openListen(s);
      if (!listening) process.stderr.write(`${server.name}: no listen stream (the server refused it)\n`);
    }
    lanes = await lanesFor(s, () => era);
    await drive(s, lanes, { count: WARMUP, first: 1_000_000 });
    const t0 = performance.now();
    const serverCpu0 = cpuSeconds(s.child.pid);
    const ownCpu0 = process.cpuUsage();
    await drive(s, lanes, { count: REQUESTS });
    const seconds = (performance.now() - t0) / 1000;
    const own = process.cpuUsage(ownCpu0);
    return {
      rate: REQUESTS / seconds,
      serverCpu: (cpuSeconds(s.child.pid) - serverCpu0) / seconds,
      perCpu: REQUESTS / (cpuSeconds(s.child.pid) - serverCpu0),
      clientCpu: (own.user + own.system) / 1e6 / seconds,
      peak: status(s.child.pid).peak,
    };
  } finally {
    listening?.destroy();
    await endLanes(s, lanes);
    await s.stop();
  }
}

/** Toolsmith under load for SECONDS, both eras at once (even lanes 2026-07-28, odd lanes in sessions). */
async function soak(server) {
  const s = await start(server, { probe: true, label: "soak" });
  let lanes = [];
  try {
    const idle = status(s.child.pid).rss;
    lanes = await lanesFor(s, (i) => ERAS[i % 2]);
    await drive(s, lanes, { count: WARMUP, first: 1_000_000 });
    const startHeap = await s.heap();
    const startRss = status(s.child.pid).rss;
    const samples = [startRss];
    const timer = setInterval(() => samples.push(status(s.child.pid).rss), 1000);
    const t0 = performance.now();
    const requests = await drive(s, lanes, { until: t0 + SECONDS * 1000 });
    const seconds = (performance.now() - t0) / 1000;
    clearInterval(timer);
    const end = status(s.child.pid);
    samples.push(end.rss);
    const endHeap = await s.heap();
    const step = Math.max(1, Math.round(samples.length / 10));
    process.stderr.write(
      `soak: RSS MB every ${step} s: ${samples
        .filter((_, i) => i % step === 0 || i === samples.length - 1)
        .map((mb) => mb.toFixed(0))
        .join(" ")}; heap after GC ${startHeap.toFixed(1)} → ${endHeap.toFixed(1)} MB\n`,
    );
    return {
      idle,
      start: startRss,
      mid: samples[Math.floor(samples.length / 2)],
      end: end.rss,
      peak: end.peak,
      max: Math.max(...samples),
      startHeap,
      endHeap,
      requests,
      seconds,
    };
  } finally {
    await endLanes(s, lanes);
    await s.stop();
  }
}

const median = (list) => [...list].sort((x, y) => x - y)[Math.floor(list.length / 2)];
const samples = new Map();
// One discarded pass first, so the load generator's own JIT warm-up does not land on the first server measured.
await throughput(SERVERS[0], ERAS[0], "discarded");
for (let round = 1; round <= ROUNDS; round++) {
  for (const era of MEASURED_ERAS) {
    const servers = MEASURED.filter((candidate) => candidate.eras.includes(era));
    // Every other round in the reverse order: a machine that speeds up or slows down over a round favours no server.
    if (round % 2 === 0) servers.reverse();
    for (const server of servers) {
      const key = `${era} ${server.name}`;
      const result = await throughput(server, era, `${era}-round${round}`);
      const entry = samples.get(key) ?? { rate: [], serverCpu: [], perCpu: [], clientCpu: [], peak: [] };
      for (const field of Object.keys(entry)) entry[field].push(result[field]);
      samples.set(key, entry);
      process.stderr.write(
        `round ${round} ${key}: ${result.rate.toFixed(0)} requests/s, server CPU ${(100 * result.serverCpu).toFixed(0)}% (${result.perCpu.toFixed(0)} requests per CPU-second), load generator CPU ${(100 * result.clientCpu).toFixed(0)}%, peak ${result.peak.toFixed(0)} MB\n`,
      );
    }
  }
}
const toolsmith = SERVERS.find((server) => server.name === SOAKED);
let memory;
if (SECONDS > 0 && toolsmith && MEASURED.includes(toolsmith)) {
  process.stderr.write(`soak: ${SOAKED} for ${SECONDS} s\n`);
  memory = await soak(toolsmith);
}

const rateOf = (era, name) => {
  const s = samples.get(`${era} ${name}`);
  return s ? median(s.rate) : undefined;
};
const percent = (value) => `${(100 * value).toFixed(0)}%`;
const lines = [
  `${PIN ? "Server pinned to core 0, load generator to core 1. " : ""}Streamable HTTP on 127.0.0.1, one \`add\` tool, ${CLIENT === "raw" ? "a raw node:net client" : "a node:http client"}, ${CONNECTIONS} keep-alive connections with one request each in flight, ${REQUESTS} \`tools/call\` after ${WARMUP} warm-up; medians of ${ROUNDS} interleaved rounds on Node ${process.versions.node}.`,
  "2026-07-28: stateless POSTs with `_meta` and the MCP-Protocol-Version, Mcp-Method and Mcp-Name headers. 2025-11-25: `initialize` once per connection, then calls with MCP-Session-Id (the official SDK's stateless fallback hands out no session, so its calls go without).",
  "Ratios are to the bare node:http handler of the same era (higher is better); CPU is the share of one core used while measured (a load generator near 100% means it, not the server, set the pace; a server well under 100% was short of CPU, and its requests per CPU-second are the steadier figure).",
  "",
  "| era | server | requests/s | ratio to the floor | Toolsmith ÷ this | server CPU | requests per server CPU-second | load-generator CPU | peak RSS |",
  "|---|---|---|---|---|---|---|---|---|",
];
for (const era of ERAS) {
  const floor = rateOf(era, FLOOR);
  const ours = rateOf(era, "Toolsmith");
  for (const server of MEASURED.filter((candidate) => candidate.eras.includes(era))) {
    const s = samples.get(`${era} ${server.name}`);
    if (!s) continue;
    const rate = median(s.rate);
    const vs = ours === undefined || server.name === "Toolsmith" ? "–" : `${(ours / rate).toFixed(2)}×`;
    lines.push(
      `| ${ERA_LABEL[era]} | ${server.name} | ${rate.toFixed(0)} | ${(rate / floor).toFixed(2)} | ${vs} | ${percent(median(s.serverCpu))} | ${median(s.perCpu).toFixed(0)} | ${percent(median(s.clientCpu))} | ${median(s.peak).toFixed(0)} MB |`,
    );
  }
}
const check = (ok) => (ok ? "met" : "**not met**");
const targets = [];
// The targets are on requests/s; the same ratio per server CPU-second is given too, steadier on a busy machine.
const perCpuOf = (era, name) => median(samples.get(`${era} ${name}`).perCpu);
for (const era of ERAS) {
  const floor = rateOf(era, FLOOR);
  const ours = rateOf(era, "Toolsmith");
  if (ours === undefined || floor === undefined) continue;
  const cpu = (name) => (perCpuOf(era, "Toolsmith") / perCpuOf(era, name)).toFixed(2);
  targets.push(
    `- ${ERA_LABEL[era]}: Toolsmith at ${(ours / floor).toFixed(2)} of the floor (${cpu(FLOOR)} per CPU-second; target ≥ 0.6: ${check(ours / floor >= 0.6)})`,
  );
  const name = era === "2026-07-28" ? OFFICIAL : OFFICIAL_SESSIONS;
  const official = rateOf(era, name);
  if (official !== undefined) {
    targets.push(
      `- ${ERA_LABEL[era]}: Toolsmith at ${(ours / official).toFixed(2)}× ${name} (${cpu(name)}× per CPU-second; target ≥ 5×: ${check(ours / official >= 5)})`,
    );
  }
}
for (const era of ERAS) {
  // The engine's targets: the Redis engine at ≥ 0.5 of the memory engine, and still ≥ 3× the official SDK v2.
  const redis = rateOf(era, REDIS);
  const ours = rateOf(era, "Toolsmith");
  if (redis === undefined || ours === undefined) continue;
  const official = rateOf(era, era === "2026-07-28" ? OFFICIAL : OFFICIAL_SESSIONS);
  const cpu = (name) => (perCpuOf(era, REDIS) / perCpuOf(era, name)).toFixed(2);
  targets.push(
    `- ${ERA_LABEL[era]}${LISTEN && era === "2026-07-28" ? " (a listen stream open)" : ""}: the Redis engine at ${(redis / ours).toFixed(2)} of the memory engine (${cpu("Toolsmith")} per CPU-second; target ≥ 0.5: ${check(redis / ours >= 0.5)})` +
      (official === undefined
        ? ""
        : `, ${(redis / official).toFixed(2)}× the official SDK v2 (${cpu(era === "2026-07-28" ? OFFICIAL : OFFICIAL_SESSIONS)}× per CPU-second; target ≥ 3×: ${check(redis / official >= 3)})`),
  );
}
// Sign-in's target: verifying a JWT with a cached key costs little, Toolsmith behind it at >= 0.85 of Toolsmith.
// Judged on the median of each round's own ratio (the two ran minutes apart at most, on the same machine): on a
// machine whose speed drifts between rounds, steadier than the ratio of the medians, which is given too.
for (const { name } of MEASURED.filter((server) => server.bearer)) {
  const era = "2026-07-28";
  const authed = samples.get(`${era} ${name}`)?.rate;
  const ours = samples.get(`${era} Toolsmith`)?.rate;
  if (authed === undefined || ours === undefined) continue;
  const paired = authed.map((rate, round) => rate / ours[round]);
  const ratio = median(paired);
  const cpu = (perCpuOf(era, name) / perCpuOf(era, "Toolsmith")).toFixed(2);
  const spread = `${Math.min(...paired).toFixed(2)}–${Math.max(...paired).toFixed(2)}`;
  targets.push(
    `- ${ERA_LABEL[era]}: ${name} at ${ratio.toFixed(2)} of Toolsmith without auth (median of the rounds' ratios, ${spread}; ${(median(authed) / median(ours)).toFixed(2)} of medians; ${cpu} per CPU-second; target ≥ 0.85: ${check(ratio >= 0.85)})`,
  );
}
const remoteStarts = samples.get(`2026-07-28 ${JWT_REMOTE}`)?.rate.length;
if (issuer && remoteStarts) {
  targets.push(`- the remote JWKS was fetched ${issuer.fetches()} times by ${remoteStarts} runs of ${JWT_REMOTE}`);
}
if (memory) {
  // Flat: RSS at the end within 10% (or 8 MB) of RSS halfway through (the first seconds grow the heap to its
  // working size; a per-request leak keeps growing it after), and the heap left after full collections grown by
  // 2 MB at most over the whole run (RSS alone also counts garbage not collected yet).
  const growth = memory.end - memory.mid;
  const heapGrowth = memory.endHeap - memory.startHeap;
  const flat = growth <= Math.max(8, 0.1 * memory.mid) && heapGrowth <= 2;
  const perCall = (mb) => `${((mb * 1024 * 1024) / memory.requests).toFixed(1)} bytes per call`;
  targets.push(
    `- memory, ${SOAKED} for ${memory.seconds.toFixed(0)} s (${memory.requests} calls, ${(memory.requests / memory.seconds).toFixed(0)}/s, half the connections in each era): RSS ${memory.idle.toFixed(0)} MB idle, ${memory.start.toFixed(1)} MB at the start, ${memory.mid.toFixed(1)} MB halfway, ${memory.end.toFixed(1)} MB at the end (max ${memory.max.toFixed(1)} MB); heap after full collections ${memory.startHeap.toFixed(1)} → ${memory.endHeap.toFixed(1)} MB (${perCall(heapGrowth)}); flat: ${check(flat)}`,
  );
}
if (targets.length > 0) lines.push("", "Targets:", "", ...targets);
const report = lines.join("\n");
mkdirSync(here("./results"), { recursive: true });
writeFileSync(here(`./results/${values.out}`), `${report}\n`);
// Each round's figures beside the report, for a driver that judges its own target (bench/store.mjs).
writeFileSync(here(`./results/${values.out.replace(/\.md$/, "")}.json`), JSON.stringify(Object.fromEntries(samples)));
process.stdout.write(`${report}\n`);
await issuer?.stop();
