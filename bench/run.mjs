// Toolsmith vs the official SDK v2 vs a hand-written JSON-RPC loop, over stdio, interleaved in one run.
// Usage: pnpm bench [-- --rounds 3 --calls 30000 --inflight 64]
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { benchOptions } from "./options.mjs";

const {
  values,
  only: ONLY,
  profile: PROFILE,
  extra,
} = benchOptions(
  {
    calls: { type: "string", default: "30000" },
    inflight: { type: "string", default: "64" },
    warmup: { type: "string", default: "3000" },
  },
  { rounds: "5" },
);
const ROUNDS = Number(values.rounds);
const CALLS = Number(values.calls);
const IN_FLIGHT = Number(values.inflight);
const WARMUP = Number(values.warmup);

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const SERVERS = [
  { name: "hand-written loop", file: here("./servers/hand-written.mjs") },
  { name: "hand-written loop + import zod", file: here("./servers/hand-written-zod.mjs") },
  { name: "Toolsmith", file: here("./servers/toolsmith.mjs") },
  { name: "Toolsmith + pass-through middleware", file: here("./servers/toolsmith-middleware.mjs") },
  { name: "official SDK v2", file: here("./servers/official-sdk.mjs") },
];
SERVERS.push(...extra);
const ERAS = ["2025-11-25", "2026-07-28"];

// With taskset, the server runs on core 0 and this load generator on core 1: less scheduler noise.
const PIN = spawnSync("taskset", ["-cp", "1", String(process.pid)], { stdio: "ignore" }).status === 0;
// --only "Toolsmith": measure just the named servers (the floor is always kept, as every ratio needs it).
const MEASURED = SERVERS.filter((server) => !ONLY || server.name === "hand-written loop" || ONLY.includes(server.name));
const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1.0.0" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

function request(era, id, method, params = {}) {
  const full = era === "2026-07-28" ? { ...params, _meta: META } : params;
  return `${JSON.stringify({ jsonrpc: "2.0", id, method, params: full })}\n`;
}

function opening(era) {
  if (era === "2026-07-28") return [request(era, "discover", "server/discover")];
  return [
    request(era, "init", "initialize", {
      protocolVersion: era,
      capabilities: {},
      clientInfo: { name: "bench", version: "1.0.0" },
    }),
    `${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`,
  ];
}

let profiled = 0;

/** A spawned server with replies routed by id; `label` names its `--cpu-prof` file when there is --profile. */
function start(file, label) {
  const flags = [];
  if (PROFILE && label) {
    const name = `${++profiled}-${label}`.replace(/[^\w.-]+/g, "-");
    flags.push("--cpu-prof", "--cpu-prof-dir", PROFILE, "--cpu-prof-name", `${name}.cpuprofile`);
  }
  const args = [...flags, file];
  const command = PIN ? ["taskset", ["-c", "0", process.execPath, ...args]] : [process.execPath, args];
  const child = spawn(command[0], command[1], { stdio: ["pipe", "pipe", "inherit"] });
  // The load generator shares the machine's two cores with the server, so it stays lean: replies are routed by
  // an id read off the raw line, callbacks instead of promises, and writes made while a chunk is read are corked.
  const waiting = new Map();
  let buffer = "";
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk) => {
    buffer += chunk;
    child.stdin.cork();
    let start = 0;
    let newline = buffer.indexOf("\n");
    while (newline !== -1) {
      const line = buffer.slice(start, newline);
      start = newline + 1;
      newline = buffer.indexOf("\n", start);
      const found = ID.exec(line);
      if (!found) continue;
      const id = found[1].startsWith('"') ? JSON.parse(found[1]) : Number(found[1]);
      const callback = waiting.get(id);
      if (callback) {
        waiting.delete(id);
        callback(line);
      }
    }
    buffer = buffer.slice(start);
    child.stdin.uncork();
  });
  return {
    child,
    onReply: (id, callback) => waiting.set(id, callback),
    reply: (id) => new Promise((resolve) => waiting.set(id, (line) => resolve(JSON.parse(line)))),
    write: (text) => child.stdin.write(text),
    async stop() {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.stdin.end();
      const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}

// The top-level id of a reply: every server here writes no other "id" key in an `add` reply.
const ID = /"id":(-?\d+|"[^"]*")/;

function peakRssMb(pid) {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN);
  return kb / 1024;
}

async function startup(server, era) {
  const t0 = performance.now();
  const s = start(server.file);
  const listed = s.reply("list");
  s.write(opening(era).join("") + request(era, "list", "tools/list"));
  const reply = await listed;
  const ms = performance.now() - t0;
  if (!reply.result?.tools?.length) throw new Error(`${server.name}: no tools in ${JSON.stringify(reply)}`);
  await s.stop();
  return ms;
}

async function drive(s, era, count, firstId) {
  let sent = 0;
  let done = 0;
  await new Promise((resolve, reject) => {
    const next = () => {
      const id = firstId + sent;
      const a = sent;
      sent++;
      s.onReply(id, (line) => {
        // Every reply is checked for its sum; every 16th is also parsed whole.
        const ok =
          line.includes(`"text":"${a + 1}"`) &&
          (a % 16 !== 0 || JSON.parse(line).result?.content?.[0]?.text === String(a + 1));
        if (!ok) {
          reject(new Error(`bad reply to call ${id}: ${line}`));
          return;
        }
        done++;
        if (done === count) resolve();
        else if (sent < count) next();
      });
      s.write(request(era, id, "tools/call", { name: "add", arguments: { a, b: 1 } }));
    };
    for (let i = 0; i < Math.min(IN_FLIGHT, count); i++) next();
  });
}

async function throughput(server, era, round) {
  // Only measured rounds are profiled (the ending stdin lets the server exit normally, which writes the profile).
  const s = start(server.file, round && `${server.name}-${era}-round${round}`);
  const opened = s.reply(era === "2026-07-28" ? "discover" : "init");
  s.write(opening(era).join(""));
  await opened;
  await drive(s, era, WARMUP, 1_000_000);
  const t0 = performance.now();
  await drive(s, era, CALLS, 0);
  const seconds = (performance.now() - t0) / 1000;
  const peak = peakRssMb(s.child.pid);
  await s.stop();
  return { callsPerSecond: CALLS / seconds, peak };
}

const median = (list) => [...list].sort((x, y) => x - y)[Math.floor(list.length / 2)];
const samples = new Map();
// One discarded pass first, so the load generator's own JIT warm-up does not land on the first server measured.
await throughput(SERVERS[0], ERAS[0]);
for (let round = 1; round <= ROUNDS; round++) {
  for (const era of ERAS) {
    for (const server of MEASURED) {
      const key = `${era} ${server.name}`;
      // Spawn times are noisy: several starts per round, their median kept.
      const starts = [];
      for (let i = 0; i < 5; i++) starts.push(await startup(server, era));
      const ready = median(starts);
      const { callsPerSecond, peak } = await throughput(server, era, round);
      const entry = samples.get(key) ?? { ready: [], rate: [], peak: [] };
      entry.ready.push(ready);
      entry.rate.push(callsPerSecond);
      entry.peak.push(peak);
      samples.set(key, entry);
      process.stderr.write(
        `round ${round} ${key}: ${callsPerSecond.toFixed(0)} calls/s, ready ${ready.toFixed(0)} ms, peak ${peak.toFixed(0)} MB\n`,
      );
    }
  }
}

const lines = [
  `${PIN ? "Server pinned to core 0, load generator to core 1. " : ""}stdio, one \`add\` tool, ${IN_FLIGHT} calls in flight, ${CALLS} calls after ${WARMUP} warm-up; medians of ${ROUNDS} interleaved rounds on Node ${process.versions.node}.`,
  "Ratios are to the hand-written loop of the same era (throughput: higher is better; ready time and memory: lower is better).",
  "",
  "| era | server | calls/s ratio | ready-after-spawn ratio | peak-memory ratio | vs official SDK v2 throughput |",
  "|---|---|---|---|---|---|",
];
for (const era of ERAS) {
  const floor = samples.get(`${era} hand-written loop`);
  const official = samples.get(`${era} official SDK v2`);
  for (const server of MEASURED) {
    const s = samples.get(`${era} ${server.name}`);
    const rate = median(s.rate) / median(floor.rate);
    const ready = median(s.ready) / median(floor.ready);
    const peak = median(s.peak) / median(floor.peak);
    const vsOfficial = official ? `${(median(s.rate) / median(official.rate)).toFixed(2)}×` : "–";
    lines.push(
      `| ${era} | ${server.name} | ${rate.toFixed(2)} | ${ready.toFixed(2)} | ${peak.toFixed(2)} | ${vsOfficial} |`,
    );
  }
}
lines.push("", "Absolute medians (machine-dependent):", "");
for (const [key, s] of samples) {
  lines.push(
    `- ${key}: ${median(s.rate).toFixed(0)} calls/s, ready ${median(s.ready).toFixed(0)} ms, peak ${median(s.peak).toFixed(0)} MB`,
  );
}
const report = lines.join("\n");
mkdirSync(here("./results"), { recursive: true });
writeFileSync(here("./results/latest.md"), `${report}\n`);
process.stdout.write(`${report}\n`);
