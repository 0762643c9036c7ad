// Where "ready after spawn" goes: Node's boot, import zod, the framework, its stdio transport, set-up, the first
// requests, step by step in fresh processes (servers/startup-parts.mjs), Toolsmith beside the official SDK v2.
// Usage: node bench/startup.mjs [--rounds 15 --era 2025-11-25]
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const argv = process.argv.slice(2);
const { values } = parseArgs({
  args: argv[0] === "--" ? argv.slice(1) : argv,
  options: { rounds: { type: "string", default: "15" }, era: { type: "string", default: "2025-11-25" } },
});
const ROUNDS = Number(values.rounds);
const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const KINDS = [
  { kind: "zod", name: "Node + import zod (the floor's imports)" },
  { kind: "toolsmith", name: "Toolsmith" },
  { kind: "official", name: "official SDK v2" },
];
const STEPS = ["boot", "import zod", "import framework", "import transport", "create + register"];
const LAST = "opening + first tools/list";

function sample(kind) {
  const child = spawn(process.execPath, [here("./servers/startup-parts.mjs"), kind, "--era", values.era], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk) => {
    out += chunk;
  });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code) => {
      if (code !== 0) reject(new Error(`${kind}: exit ${code}, stdout ${JSON.stringify(out.slice(0, 300))}`));
      else resolve(JSON.parse(out));
    });
  });
}

const median = (list) => [...list].sort((x, y) => x - y)[Math.floor(list.length / 2)];
const samples = new Map(KINDS.map(({ kind }) => [kind, []]));
for (let round = 1; round <= ROUNDS; round++) {
  for (const { kind } of KINDS) samples.get(kind).push(await sample(kind));
}

const lines = [
  `${values.era}; medians of ${ROUNDS} interleaved fresh processes on Node ${process.versions.node}, in ms. Each step is timed inside the process (boot: from the process's start until its main module runs); the first requests go in memory (Toolsmith: \`connection.receive\`; the SDK: \`InMemoryTransport\`), so no pipe is timed.`,
  "Own steps: what the framework adds to Node and zod (its imports, set-up and first requests), the median of each process's sum; boot and zod vary from process to process as much as that, so the ratio adds it to the floor's median instead of comparing whole sums.",
  "",
  `| server | ${[...STEPS, LAST].join(" | ")} | own steps | (floor + own steps) / floor |`,
  `|---|${[...STEPS, LAST].map(() => "---|").join("")}---|---|`,
];
const sum = (s) => Object.values(s).reduce((x, y) => x + y, 0);
const floor = median(samples.get("zod").map(sum));
for (const { kind, name } of KINDS) {
  const list = samples.get(kind);
  const cells = [...STEPS, LAST].map((step) => (step in list[0] ? median(list.map((s) => s[step])) : undefined));
  const own = median(list.map((s) => sum(s) - s.boot - s["import zod"]));
  lines.push(
    `| ${name} | ${cells.map((ms) => (ms === undefined ? "–" : ms.toFixed(1))).join(" | ")} | ${own.toFixed(1)} | ${((floor + own) / floor).toFixed(2)}× |`,
  );
}
const report = lines.join("\n");
mkdirSync(here("./results"), { recursive: true });
writeFileSync(here("./results/startup-latest.md"), `${report}\n`);
process.stdout.write(`${report}\n`);
