// The store's cost: a read and an atomic update of one key per `tools/call` (ctx.store.get + ctx.store.update) over
// Streamable HTTP, on the Redis engine beside the memory engine and beside the floor: the same server on the Redis
// engine whose tool does a bare ioredis GET then SET on the same Redis. Starts its own redis-server (bench/redis.mjs),
// runs bench/http.mjs with the three servers interleaved, then judges the target: the store on Redis costs at most
// 10% more server CPU per call than the floor (per server CPU-second: steadier than requests/s on a shared machine).
// Usage: node bench/store.mjs [any bench/http.mjs option: --rounds 3 --requests 20000 --era 2026-07-28 …]
import { appendFileSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { runWithRedis, startRedis } from "./redis.mjs";

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const argv = process.argv.slice(2);
const own = argv[0] === "--" ? argv.slice(1) : argv;

const MEMORY = "store (memory engine)";
const STORE = "store (Redis engine)";
const FLOOR = "ioredis GET + SET (Redis engine)";
const OUT = "store-latest";
// Extra server CPU per call over the floor's: the store's calls per server CPU-second at ≥ 1/1.1 of the floor's.
const TARGET = 0.1;

const redis = await startRedis();
try {
  const args = [
    here("./http.mjs"),
    "--with",
    `${MEMORY}=${here("./servers/http-toolsmith-store.mjs")}`,
    "--with",
    `${STORE}=${here("./servers/http-toolsmith-store-redis.mjs")}`,
    "--with",
    `${FLOOR}=${here("./servers/http-toolsmith-store-ioredis.mjs")}`,
    "--only",
    [MEMORY, STORE, FLOOR].join(","),
    "--soak",
    STORE,
    "--seconds",
    "0",
    "--out",
    `${OUT}.md`,
    ...own,
  ];
  process.exitCode = await runWithRedis(args, redis.url);
} finally {
  await redis.stop();
}

if (process.exitCode === 0) {
  const samples = JSON.parse(readFileSync(here(`./results/${OUT}.json`), "utf8"));
  const median = (list) => [...list].sort((x, y) => x - y)[Math.floor(list.length / 2)];
  const lines = [
    "",
    "The store (a read and an atomic update of one of 50 keys per call: key `counter-<a % 50>`, `a` the call's number):",
    "",
  ];
  for (const era of ["2026-07-28", "2025-11-25"]) {
    const store = samples[`${era} ${STORE}`];
    const floor = samples[`${era} ${FLOOR}`];
    const memory = samples[`${era} ${MEMORY}`];
    if (store === undefined || floor === undefined) continue;
    // Each round's own ratio (the two ran a minute apart at most): steadier than the medians' when the machine drifts.
    const spread = (list) => `${Math.min(...list).toFixed(2)}–${Math.max(...list).toFixed(2)}`;
    const paired = store.rate.map((rate, round) => rate / floor.rate[round]);
    const ratio = median(paired);
    const pairedCpu = store.perCpu.map((rate, round) => rate / floor.perCpu[round]);
    const perCpu = median(pairedCpu);
    const overhead = 1 / perCpu - 1;
    const check = overhead <= TARGET ? "met" : "**not met**";
    const signed = (share) => `${share < 0 ? "−" : "+"}${Math.abs(100 * share).toFixed(0)}%`;
    lines.push(
      `- ${era}: ${STORE} at ${perCpu.toFixed(2)} of the floor's requests per server CPU-second (median of the rounds' ratios, ${spread(pairedCpu)}; ${(median(store.perCpu) / median(floor.perCpu)).toFixed(2)} of medians): server CPU per call ${signed(overhead)} over the floor's; target ≤ +${100 * TARGET}%: ${check}. Requests/s: ${ratio.toFixed(2)} of the floor's (median of the rounds' ratios, ${spread(paired)}; ${(median(store.rate) / median(floor.rate)).toFixed(2)} of medians), time per call ${signed(1 / ratio - 1)}` +
        (memory === undefined
          ? ""
          : `; ${MEMORY} at ${(median(memory.rate) / median(floor.rate)).toFixed(2)} of the floor`),
    );
    // A --with server (another build of the store's, say), beside the floor the same way.
    for (const [name, other] of Object.entries(samples)) {
      const server = name.slice(era.length + 1);
      if (!name.startsWith(`${era} `) || [STORE, FLOOR, MEMORY, "bare node:http"].includes(server)) continue;
      const otherCpu = other.perCpu.map((rate, round) => rate / floor.perCpu[round]);
      lines.push(
        `  - ${server}: ${median(otherCpu).toFixed(2)} of the floor's requests per server CPU-second (median of the rounds' ratios, ${spread(otherCpu)}), ${median(other.rate.map((rate, round) => rate / floor.rate[round])).toFixed(2)} of its requests/s`,
      );
    }
  }
  const text = `${lines.join("\n")}\n`;
  appendFileSync(here(`./results/${OUT}.md`), text);
  process.stdout.write(text);
}
