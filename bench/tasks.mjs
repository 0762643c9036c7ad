// Tasks (the io.modelcontextprotocol/tasks extension, issue 17): how fast Toolsmith creates tasks and answers
// tasks/get over Streamable HTTP, on the memory engine vs the Redis engine, beside the same tool called without the
// extension (a synchronous answer). Starts its own redis-server and stops it.
// Usage: node bench/tasks.mjs [--rounds 3 --requests 20000 --warmup 2000 --connections 50 --only "Redis engine"]
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import net from "node:net";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { messageOf, rawConnection } from "./http-client.mjs";
import { benchOptions } from "./options.mjs";
import { startRedis } from "./redis.mjs";

const { values, only, profile } = benchOptions(
  {
    requests: { type: "string", default: "20000" },
    warmup: { type: "string", default: "2000" },
    connections: { type: "string", default: "50" },
  },
  { rounds: "3" },
);
const ROUNDS = Number(values.rounds);
const REQUESTS = Number(values.requests);
const WARMUP = Number(values.warmup);
const CONNECTIONS = Number(values.connections);

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const SERVER = here("./servers/http-tasks.mjs");
const MEMORY = "memory engine";
const REDIS = "Redis engine";
const ENGINES = [
  { name: MEMORY, args: [] },
  { name: REDIS, args: ["--redis"] },
].filter((engine) => !only || only.includes(engine.name));
const WORKLOADS = ["tools/call, no extension", "task creation", "tasks/get"];

// With taskset, the server runs on core 0 and this load generator on core 1 (Redis wherever the kernel puts it).
const PIN = spawnSync("taskset", ["-cp", "1", String(process.pid)], { stdio: "ignore" }).status === 0;
const TICKS = Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout) || 100;

const meta = (capabilities) =>
  JSON.stringify({
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1.0.0" },
    "io.modelcontextprotocol/clientCapabilities": capabilities,
  });
const PLAIN = meta({});
const DECLARED = meta({ extensions: { "io.modelcontextprotocol/tasks": {} } });

let spawned = 0;

/** A fresh server on `engine`, its URL read off the "listening on" line it writes on stdout. */
async function start(engine, redis, label) {
  const flags = [];
  if (profile) {
    const name = `${++spawned}-${engine.name}-${label}`.replace(/[^\w.-]+/g, "-");
    flags.push("--cpu-prof", "--cpu-prof-dir", profile, "--cpu-prof-name", `${name}.cpuprofile`);
  }
  const args = [...flags, SERVER, "--port", "0", ...engine.args];
  const command = PIN ? ["taskset", ["-c", "0", process.execPath, ...args]] : [process.execPath, args];
  const child = spawn(command[0], command[1], {
    stdio: ["ignore", "pipe", "inherit"],
    env: { ...process.env, BENCH_REDIS_URL: redis.url },
  });
  const url = await new Promise((resolve, reject) => {
    let seen = "";
    child.stdout.setEncoding("utf8");
    child.stdout.on("data", (chunk) => {
      seen += chunk;
      const listening = /listening on (http:\/\/\S+)/.exec(seen);
      if (listening) resolve(new URL(listening[1]));
    });
    child.once("exit", (code) => reject(new Error(`${engine.name} exited (${code}) before listening`)));
  });
  const sockets = [];
  return {
    child,
    url,
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
      const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** The request head up to its per-request headers (the raw client writes it as given). */
function headFor(url, method, name) {
  return (
    `POST ${url.pathname} HTTP/1.1\r\nhost: ${url.host}\r\ncontent-type: application/json\r\n` +
    `accept: application/json, text/event-stream\r\nmcp-protocol-version: 2026-07-28\r\n` +
    `mcp-method: ${method}\r\nmcp-name: ${name}\r\n`
  );
}

// Each workload: the request for the i-th call, and the check of its reply (`ids` gathers the tasks created).
function workload(kind, url, ids) {
  const call = headFor(url, "tools/call", "quick");
  const body = (i, metaText) =>
    `{"jsonrpc":"2.0","id":${i},"method":"tools/call","params":{"name":"quick","arguments":{"a":${i}},"_meta":${metaText}}}`;
  if (kind === "tools/call, no extension") {
    return {
      request: (i) => ({ head: call, body: body(i, PLAIN) }),
      check: (i, text) =>
        text.includes(`"text":"${i + 1}"`) && (i % 16 !== 0 || messageOf(text)?.result?.resultType === "complete"),
    };
  }
  if (kind === "task creation") {
    return {
      request: (i) => ({ head: call, body: body(i, DECLARED) }),
      check: (i, text) => {
        const id = /"taskId":"([^"]+)"/.exec(text)?.[1];
        if (id === undefined || !text.includes('"resultType":"task"')) return false;
        ids.push(id);
        return i % 16 !== 0 || messageOf(text)?.result?.taskId === id;
      },
    };
  }
  const heads = new Map();
  const taskOf = (i) => ids[i % ids.length];
  return {
    request: (i) => {
      const id = taskOf(i);
      let head = heads.get(id);
      if (head === undefined) {
        head = headFor(url, "tasks/get", id);
        heads.set(id, head);
      }
      return {
        head,
        body: `{"jsonrpc":"2.0","id":${i},"method":"tasks/get","params":{"taskId":"${id}","_meta":${DECLARED}}}`,
      };
    },
    check: (i, text) =>
      text.includes(`"taskId":"${taskOf(i)}"`) && (i % 16 !== 0 || messageOf(text)?.result?.resultType === "complete"),
  };
}

/** `count` requests of `work`, one in flight per connection, every reply's status and content checked. */
function drive(connections, work, count, first) {
  let sent = 0;
  let done = 0;
  let failed = false;
  return new Promise((resolve, reject) => {
    const next = (connection) => {
      const i = first + sent++;
      const { head, body } = work.request(i);
      connection.send({ head }, body, (error, response, text) => {
        if (failed) return;
        if (error !== undefined || response.statusCode !== 200 || !work.check(i, text)) {
          failed = true;
          reject(error ?? new Error(`bad reply to request ${i}: ${response.statusCode} ${text}`));
          return;
        }
        done++;
        if (sent < count) next(connection);
        else if (done === sent) resolve(done);
      });
    };
    for (const connection of connections.slice(0, Math.min(connections.length, count))) next(connection);
  });
}

function peakMb(pid) {
  const text = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmHWM:\s+(\d+)/.exec(text)?.[1] ?? Number.NaN) / 1024;
}

/** CPU seconds the process has used (all its threads). */
function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) / TICKS;
}

/** Empty the bench's Redis between servers, so that no run reads another's tasks. */
function flushRedis(redis) {
  const { hostname, port } = new URL(redis.url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => socket.write("*1\r\n$8\r\nFLUSHALL\r\n"));
    socket.setEncoding("utf8");
    socket.once("data", (reply) => {
      socket.destroy();
      if (reply.startsWith("+OK")) resolve();
      else reject(new Error(`FLUSHALL: ${reply}`));
    });
    socket.once("error", reject);
  });
}

/** One server through the three workloads in turn: each warmed up, then timed. */
async function measure(engine, redis, label) {
  await flushRedis(redis);
  const s = await start(engine, redis, label);
  try {
    const connections = Array.from({ length: CONNECTIONS }, () => s.connect());
    const ids = [];
    const results = {};
    let first = 0;
    for (const kind of WORKLOADS) {
      const work = workload(kind, s.url, ids);
      await drive(connections, work, WARMUP, first);
      first += WARMUP;
      const t0 = performance.now();
      const server0 = cpuSeconds(s.child.pid);
      const redis0 = cpuSeconds(redis.pid);
      const own0 = process.cpuUsage();
      await drive(connections, work, REQUESTS, first);
      first += REQUESTS;
      const seconds = (performance.now() - t0) / 1000;
      const own = process.cpuUsage(own0);
      const serverCpu = cpuSeconds(s.child.pid) - server0;
      results[kind] = {
        rate: REQUESTS / seconds,
        serverCpu: serverCpu / seconds,
        perCpu: REQUESTS / serverCpu,
        redisCpu: (cpuSeconds(redis.pid) - redis0) / seconds,
        clientCpu: (own.user + own.system) / 1e6 / seconds,
        peak: peakMb(s.child.pid),
      };
    }
    return results;
  } finally {
    await s.stop();
  }
}

const median = (list) => [...list].sort((x, y) => x - y)[Math.floor(list.length / 2)];
const redis = await startRedis();
const samples = new Map();
try {
  // One discarded pass first, so the load generator's own JIT warm-up does not land on the first server measured.
  await measure(ENGINES[0], redis, "discarded");
  for (let round = 1; round <= ROUNDS; round++) {
    for (const engine of ENGINES) {
      const results = await measure(engine, redis, `round${round}`);
      for (const [kind, result] of Object.entries(results)) {
        const key = `${kind} ${engine.name}`;
        const entry = samples.get(key) ?? {
          rate: [],
          serverCpu: [],
          perCpu: [],
          redisCpu: [],
          clientCpu: [],
          peak: [],
        };
        for (const field of Object.keys(entry)) entry[field].push(result[field]);
        samples.set(key, entry);
        process.stderr.write(
          `round ${round} ${kind}, ${engine.name}: ${result.rate.toFixed(0)} requests/s, server CPU ${(100 * result.serverCpu).toFixed(0)}%, Redis CPU ${(100 * result.redisCpu).toFixed(0)}%, load generator CPU ${(100 * result.clientCpu).toFixed(0)}%\n`,
        );
      }
    }
  }
} finally {
  await redis.stop();
}

const percent = (value) => `${(100 * value).toFixed(0)}%`;
const lines = [
  `${PIN ? "Server pinned to core 0, load generator to core 1, Redis unpinned. " : ""}Streamable HTTP on 127.0.0.1, 2026-07-28, one tool \`quick\` (\`task: "optional"\`, returns at once), a raw node:net client, ${CONNECTIONS} keep-alive connections with one request each in flight, ${REQUESTS} requests per workload after ${WARMUP} warm-up; medians of ${ROUNDS} interleaved rounds on Node ${process.versions.node}.`,
  "tools/call, no extension: the client does not declare io.modelcontextprotocol/tasks, so the call answers at once. Task creation: the same call declaring it, answered with a CreateTaskResult (the task stored first). tasks/get: the tasks just created, in turn (each `completed`, its result inlined), with the Mcp-Name header.",
  "",
  "| workload | engine | requests/s | Redis ÷ memory | server CPU | requests per server CPU-second | Redis CPU | load-generator CPU | server peak RSS |",
  "|---|---|---|---|---|---|---|---|---|",
];
for (const kind of WORKLOADS) {
  const memory = samples.get(`${kind} ${MEMORY}`);
  for (const engine of ENGINES) {
    const s = samples.get(`${kind} ${engine.name}`);
    const rate = median(s.rate);
    const ratio =
      engine.name === REDIS && memory
        ? `${(rate / median(memory.rate)).toFixed(2)} (${(median(s.perCpu) / median(memory.perCpu)).toFixed(2)} per CPU-second)`
        : "";
    lines.push(
      `| ${kind} | ${engine.name} | ${rate.toFixed(0)} | ${ratio} | ${percent(median(s.serverCpu))} | ${median(s.perCpu).toFixed(0)} | ${engine.name === REDIS ? percent(median(s.redisCpu)) : ""} | ${percent(median(s.clientCpu))} | ${median(s.peak).toFixed(0)} MB |`,
    );
  }
}
const report = lines.join("\n");
mkdirSync(here("./results"), { recursive: true });
writeFileSync(here("./results/tasks-latest.md"), `${report}\n`);
process.stdout.write(`${report}\n`);
