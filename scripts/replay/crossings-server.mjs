// The process crossings.mjs measures: a server of one `add` tool built from a checkout, served over stdio or HTTP,
// under V8's precise coverage (call counts) from before its first module loads. On the parent's "take" it takes the
// coverage (which resets the counts) and answers with the source files whose functions ran since the last take.
//   node crossings-server.mjs <checkout> stdio|http      (forked with an IPC channel)
import { readFileSync, realpathSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { SourceMap } from "node:module";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const [checkout, transport] = process.argv.slice(2);
const session = new Session();
session.connect();
await session.post("Profiler.enable");
await session.post("Profiler.startPreciseCoverage", { callCount: true, detailed: true });

const { dependencyUrl, load } = await import("./entries.mjs");
const { createServer } = await load(checkout, "@toolsmith/core");
const { z } = await import(dependencyUrl(checkout, "@toolsmith/core", "zod"));
const server = createServer({ name: "crossings", version: "1.0.0", logger: () => {} });
server.tool({
  name: "add",
  description: "Add two numbers",
  input: { a: z.number(), b: z.number() },
  handler: ({ a, b }) => a + b,
});

const packages = `${realpathSync(resolve(checkout))}/packages/`;
const files = new Map();

// A file's text, its line starts, and its source map (a sibling .map, as the builds write them), read once.
function fileOf(path) {
  let file = files.get(path);
  if (file) return file;
  const text = readFileSync(path, "utf8");
  const lines = [0];
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) lines.push(i + 1);
  let map;
  const named = /\/\/# sourceMappingURL=(\S+)\s*$/.exec(text)?.[1];
  if (named && !named.startsWith("data:")) {
    try {
      map = {
        dir: dirname(join(dirname(path), named)),
        map: new SourceMap(JSON.parse(readFileSync(join(dirname(path), named), "utf8"))),
      };
    } catch {
      map = undefined;
    }
  }
  file = { lines, map };
  files.set(path, file);
  return file;
}

// The package and package-relative source file of an offset in a built file (through its source map when it has one).
function sourceOf(path, offset) {
  const { lines, map } = fileOf(path);
  let line = 0;
  for (let lo = 0, hi = lines.length - 1; lo <= hi; ) {
    const mid = (lo + hi) >> 1;
    if (lines[mid] <= offset) {
      line = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  const pkg = relative(packages, path).split("/")[0];
  const entry = map?.map.findEntry(line, offset - lines[line]);
  const source = entry?.originalSource ? resolve(map.dir, entry.originalSource.replace(/^file:\/\//, "")) : path;
  return { pkg, file: relative(join(packages, pkg), source) };
}

/** The functions called since the last take, as { "<package>": { "<file>": calls } }. */
async function take() {
  const { result } = await session.post("Profiler.takePreciseCoverage");
  const out = {};
  for (const script of result) {
    if (!script.url.startsWith("file://")) continue;
    const path = fileURLToPath(script.url);
    if (!path.startsWith(packages) || path.includes("/node_modules/")) continue;
    for (const fn of script.functions) {
      const count = fn.ranges[0]?.count ?? 0;
      // The module's own top level is not a function the call crossed.
      if (count === 0 || fn.ranges[0].startOffset === 0) continue;
      const { pkg, file } = sourceOf(path, fn.ranges[0].startOffset);
      out[pkg] ??= {};
      out[pkg][file] = (out[pkg][file] ?? 0) + count;
    }
  }
  return out;
}

process.on("message", async (message) => {
  if (message === "take") process.send({ taken: await take() });
});
process.on("disconnect", () => process.exit(0));

if (transport === "stdio") {
  const { serveStdio } = await load(checkout, "@toolsmith/transport-stdio");
  serveStdio(server);
  process.send({ ready: true });
} else {
  const { listen } = await load(checkout, "@toolsmith/transport-http");
  const http = await listen(server, { port: 0, log: null });
  process.send({ ready: true, url: http.url });
}
