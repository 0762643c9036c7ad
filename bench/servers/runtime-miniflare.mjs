import { dirname } from "node:path";
import { performance } from "node:perf_hooks";
import { Miniflare } from "miniflare";

// Runs the bundled Worker of servers/runtime-worker.mjs under workerd through miniflare, on 127.0.0.1, for
// bench/runtimes.mjs: `--bundle FILE` (the esbuild output), `--port N` (0 picks a free one). Says the URL on stdout,
// with the moment miniflare was asked to start workerd (ms since the epoch), so that a cold start can also be
// timed without Node's boot and miniflare's import. Ends workerd on SIGTERM.
const option = (name) => {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
};
const bundle = option("--bundle");
const startedAt = performance.timeOrigin + performance.now();
const mf = new Miniflare({
  modules: true,
  scriptPath: bundle,
  modulesRoot: dirname(bundle),
  compatibilityDate: "2026-07-28",
  host: "127.0.0.1",
  port: Number(option("--port") ?? 0),
});
const url = await mf.ready;
process.stdout.write(`listening on ${new URL("/mcp", url)} (workerd asked for at ${startedAt.toFixed(3)})\n`);
process.once("SIGTERM", () => {
  mf.dispose().then(() => process.exit(0));
});
