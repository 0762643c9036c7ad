// Registering 1,000 and 5,000 tools, and listing them: Toolsmith vs the official SDK v2, a fresh process per sample.
// Usage: node bench/registration.mjs [--rounds 5 --tools 1000,5000 --lists 3 --era 2025-11-25 --profile DIR]
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { benchOptions } from "./options.mjs";

const {
  values,
  only: ONLY,
  profile: PROFILE,
  extra,
} = benchOptions(
  {
    tools: { type: "string", default: "1000,5000" },
    lists: { type: "string", default: "3" },
    era: { type: "string", default: "2025-11-25" },
  },
  { rounds: "5" },
);
const ROUNDS = Number(values.rounds);
const SIZES = values.tools.split(",").map(Number);
const LISTS = Number(values.lists);
const ERA = values.era;

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const OFFICIAL = "official SDK v2";
const SERVERS = [
  { name: "Toolsmith", file: here("./servers/registration-toolsmith.mjs") },
  { name: OFFICIAL, file: here("./servers/registration-official-sdk.mjs") },
];
SERVERS.push(...extra);
// --only "Toolsmith": measure just the named servers (the official SDK is always kept, as every ratio needs it).
const MEASURED = SERVERS.filter((server) => !ONLY || server.name === OFFICIAL || ONLY.includes(server.name));

/** One sample: a fresh process registers `tools` tools, lists them, prints one JSON line and exits. */
function sample(server, tools, label) {
  const flags = ["--expose-gc"];
  if (PROFILE) flags.push("--cpu-prof", "--cpu-prof-dir", PROFILE, "--cpu-prof-name", `${label}.cpuprofile`);
  const args = [...flags, server.file, "--tools", String(tools), "--lists", String(LISTS), "--era", ERA];
  const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk) => {
    out += chunk;
  });
  return new Promise((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code) => {
      // The child's stdout must be exactly its one line of results: anything else a server wrote there fails.
      const lines = out.split("\n").filter((line) => line !== "");
      if (code !== 0 || lines.length !== 1) {
        reject(
          new Error(`${server.name} with ${tools} tools: exit ${code}, stdout ${JSON.stringify(out.slice(0, 500))}`),
        );
        return;
      }
      resolve(JSON.parse(lines[0]));
    });
  });
}

const median = (list) => [...list].sort((x, y) => x - y)[Math.floor(list.length / 2)];
const FIELDS = [
  "schemasMs",
  "importMs",
  "registerMs",
  "registerCpuMs",
  "withSchemasMs",
  "firstListMs",
  "steadyListMs",
  "heapBeforeMb",
  "heapRegisteredMb",
  "heapListedMb",
  "listKb",
];
const samples = new Map();
if (PROFILE) mkdirSync(PROFILE, { recursive: true });
for (let round = 1; round <= ROUNDS; round++) {
  for (const tools of SIZES) {
    for (const [index, server] of MEASURED.entries()) {
      const key = `${tools} ${server.name}`;
      const result = await sample(
        server,
        tools,
        `${index + 1}-${server.name.replace(/\W+/g, "-")}-${tools}-round${round}`,
      );
      const entry = samples.get(key) ?? Object.fromEntries(FIELDS.map((field) => [field, []]));
      // As a server that builds its schemas inline in the register calls would time it.
      result.withSchemasMs = result.schemasMs + result.registerMs;
      for (const field of FIELDS) entry[field].push(result[field]);
      samples.set(key, entry);
      process.stderr.write(
        `round ${round} ${key}: register ${result.registerMs.toFixed(0)} ms, first list ${result.firstListMs.toFixed(1)} ms, list ${result.steadyListMs.toFixed(1)} ms\n`,
      );
    }
  }
}

const m = (key, field) => median(samples.get(key)[field]);
const ms = (value) => (value < 10 ? value.toFixed(1) : value.toFixed(0));
const mb = (value) => value.toFixed(1);
const lines = [
  `${ERA}, each tool a distinct zod object of 2–4 described fields; a fresh process per sample; medians of ${ROUNDS} interleaved rounds on Node ${process.versions.node}; steady list: the median of ${LISTS} lists after the first.`,
  "Registration runs from before the first register call to after the last (the zod field schemas are built before the clock starts; Toolsmith takes the shape, the SDK `z.object(shape)` built inside the loop). A list runs from handing the request to the server in memory until the reply is a JSON line (Toolsmith: `connection.receive` to `send`; the SDK: `InMemoryTransport` to its client end, then `JSON.stringify`). Heap: `heapUsed` after a full collection.",
  "",
  `Ratios are to the ${OFFICIAL} (lower is better; ≤ 1.00 is at least as fast).`,
  "",
  "| tools | server | registration | registration CPU | registration + building the zod schemas | first tools/list | steady tools/list | heap growth by registration | heap after lists |",
  "|---|---|---|---|---|---|---|---|---|",
];
for (const tools of SIZES) {
  const official = `${tools} ${OFFICIAL}`;
  for (const server of MEASURED) {
    if (server.name === OFFICIAL) continue;
    const key = `${tools} ${server.name}`;
    const ratio = (field) => (m(key, field) / m(official, field)).toFixed(2);
    const growth = (k) => m(k, "heapRegisteredMb") - m(k, "heapBeforeMb");
    const listed = (k) => m(k, "heapListedMb") - m(k, "heapBeforeMb");
    lines.push(
      `| ${tools} | ${server.name} | ${ratio("registerMs")} | ${ratio("registerCpuMs")} | ${ratio("withSchemasMs")} | ${ratio("firstListMs")} | ${ratio("steadyListMs")} | ${(growth(key) / growth(official)).toFixed(2)} | ${(listed(key) / listed(official)).toFixed(2)} |`,
    );
  }
}
lines.push(
  "",
  "Absolute medians (machine-dependent; heap growth is over the heap before registration, tool specs included):",
  "",
  "| tools | server | zod schemas built | import | registration | registration CPU | first tools/list | steady tools/list | heap growth by registration | after lists | list reply |",
  "|---|---|---|---|---|---|---|---|---|---|---|",
);
for (const tools of SIZES) {
  for (const server of MEASURED) {
    const key = `${tools} ${server.name}`;
    lines.push(
      `| ${tools} | ${server.name} | ${ms(m(key, "schemasMs"))} ms | ${ms(m(key, "importMs"))} ms | ${ms(m(key, "registerMs"))} ms | ${ms(m(key, "registerCpuMs"))} ms | ${ms(m(key, "firstListMs"))} ms | ${ms(m(key, "steadyListMs"))} ms | ${mb(m(key, "heapRegisteredMb") - m(key, "heapBeforeMb"))} MB | ${mb(m(key, "heapListedMb") - m(key, "heapBeforeMb"))} MB | ${m(key, "listKb").toFixed(0)} KB |`,
    );
  }
}
lines.push(
  "",
  "Target (issue 15): Toolsmith's registration ≤ 1.00 of the official SDK's at every size, keeping its lists faster.",
);
for (const tools of MEASURED.some((server) => server.name === "Toolsmith") ? SIZES : []) {
  const ratio = m(`${tools} Toolsmith`, "registerMs") / m(`${tools} ${OFFICIAL}`, "registerMs");
  lines.push(`- ${tools} tools: registration ${ratio.toFixed(2)}× the SDK's: ${ratio <= 1 ? "met" : "not met"}`);
}
const report = lines.join("\n");
mkdirSync(here("./results"), { recursive: true });
writeFileSync(here("./results/registration-latest.md"), `${report}\n`);
process.stdout.write(`${report}\n`);
if (PROFILE) process.stderr.write(`profiles in ${join(PROFILE)}\n`);
