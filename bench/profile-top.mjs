// The hottest functions of a .cpuprofile (`node --cpu-prof`, e.g. `node bench/http.mjs --profile DIR`), self and
// total time, dist/*.js positions mapped back to src/*.ts through their source maps.
// Usage: node bench/profile-top.mjs FILE.cpuprofile [--top 30] [--filter packages/] [--under compileTool]
// --under TEXT keeps only the samples with a frame naming TEXT on their stack (shares are then of those samples):
// where the time of one call tree goes, its library callees included.
import { readFileSync } from "node:fs";
import { SourceMap } from "node:module";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: "string", default: "30" }, filter: { type: "string" }, under: { type: "string" } },
});
const TOP = Number(values.top);
const root = fileURLToPath(new URL("..", import.meta.url));
const maps = new Map();

function sourceMap(url) {
  if (maps.has(url)) return maps.get(url);
  let map;
  try {
    const file = fileURLToPath(url);
    map = new SourceMap(JSON.parse(readFileSync(`${file}.map`, "utf8")));
  } catch {}
  maps.set(url, map);
  return map;
}

function where({ url, lineNumber, columnNumber }) {
  if (!url) return "(native)";
  const map = url.startsWith("file://") ? sourceMap(url) : undefined;
  const entry = map?.findEntry(lineNumber, columnNumber);
  if (entry?.originalSource) {
    const source = entry.originalSource.startsWith("file://")
      ? fileURLToPath(entry.originalSource)
      : fileURLToPath(new URL(entry.originalSource, url));
    return `${source.replace(root, "")}:${entry.originalLine + 1}`;
  }
  const path = url.startsWith("file://") ? fileURLToPath(url).replace(root, "") : url;
  return `${path}:${lineNumber + 1}`;
}

for (const file of positionals) {
  const profile = JSON.parse(readFileSync(file, "utf8"));
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const key = (node) => `${node.callFrame.functionName || "(anonymous)"} ${where(node.callFrame)}`;
  const keys = new Map(profile.nodes.map((node) => [node.id, key(node)]));
  const self = new Map();
  const total = new Map();
  let all = 0;
  let sampled = 0;
  const under = (id) => {
    for (let at = id; at !== undefined; at = parent.get(at)) if (keys.get(at).includes(values.under)) return true;
    return false;
  };
  profile.samples.forEach((id, i) => {
    const delta = profile.timeDeltas[i] ?? 0;
    sampled += delta;
    if (values.under && !under(id)) return;
    all += delta;
    self.set(keys.get(id), (self.get(keys.get(id)) ?? 0) + delta);
    const seen = new Set();
    for (let at = id; at !== undefined; at = parent.get(at)) {
      const k = keys.get(at);
      if (seen.has(k)) continue;
      seen.add(k);
      total.set(k, (total.get(k) ?? 0) + delta);
    }
  });
  const idle = [...self].filter(([k]) => /^\((idle|program|garbage collector)\)/.test(k));
  const pct = (us) => `${((100 * us) / all).toFixed(1)}%`.padStart(6);
  const show = (k) => !values.filter || k.includes(values.filter);
  console.log(
    `\n${file}: ${(sampled / 1e6).toFixed(1)} s sampled${values.under ? `, ${(all / 1e6).toFixed(2)} s (${((100 * all) / sampled).toFixed(1)}%) under "${values.under}"` : ""}; ${idle.map(([k, us]) => `${k.split(" ")[0]} ${pct(us).trim()}`).join(", ")}`,
  );
  // Self time by file (packages/* mapped to src), so a layer's whole cost shows even when spread thin.
  const byFile = new Map();
  for (const [k, us] of self) {
    const file = k.endsWith("(native)") ? k : k.slice(k.lastIndexOf(" ") + 1).replace(/:\d+$/, "");
    byFile.set(file, (byFile.get(file) ?? 0) + us);
  }
  console.log("\nself time by file:");
  for (const [file, us] of [...byFile]
    .filter(([k]) => show(k))
    .sort((x, y) => y[1] - x[1])
    .slice(0, TOP)) {
    console.log(`${pct(us)}  ${file}`);
  }
  console.log("\nself time:");
  for (const [k, us] of [...self]
    .filter(([k]) => show(k))
    .sort((x, y) => y[1] - x[1])
    .slice(0, TOP)) {
    console.log(`${pct(us)}  ${k}`);
  }
  console.log("\ntotal time (self + callees):");
  for (const [k, us] of [...total]
    .filter(([k]) => show(k))
    .sort((x, y) => y[1] - x[1])
    .slice(0, TOP)) {
    console.log(`${pct(us)}  ${k}`);
  }
}
