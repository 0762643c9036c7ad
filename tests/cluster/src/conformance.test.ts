import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  EXTENSION_SKIPS,
  REQUIREMENT_SETS,
  runConformance,
  runExtensionScenarios,
  SUITE_SKIPS,
} from "../../../examples/conformance-server/src/conformance-run.test-util.js";
import { type Cluster, example, startCluster } from "./cluster.js";

// Build first (npx -y pnpm@12.4.2 run build). The official conformance suite against three processes of the built
// conformance server on one Redis, behind a round-robin proxy: the same expectations as against one process
// (examples/conformance-server/src/conformance.test.ts).
describe("the official conformance suite against three processes behind a round-robin proxy", () => {
  let cluster: Cluster | undefined;

  beforeAll(async () => {
    cluster = await startCluster({ script: example("conformance-server") });
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  it.each(REQUIREMENT_SETS)(
    "passes every check of every scenario requirement set %s runs, scored or not",
    async (set) => {
      const { url, proxy } = cluster as Cluster;
      const from = proxy.routed.length;
      const { missing, failed, skipped, code, output } = await runConformance(url, set);
      expect(missing, "listed scenarios (scored or not) that wrote no results").toEqual([]);
      expect(failed, "checks that failed, in any scenario the suite ran").toEqual([]);
      expect(skipped, "scenarios the suite itself skipped").toEqual(SUITE_SKIPS[set]);
      expect(code, output).toBe(0);
      // Every process served part of the run.
      expect(new Set(proxy.routed.slice(from).map((routed) => routed.backend))).toEqual(new Set([0, 1, 2]));
    },
  );

  it.each(REQUIREMENT_SETS)(
    "passes every check of the skills extension's scenarios (SEP-2640) at %s",
    async (version) => {
      const { url, proxy } = cluster as Cluster;
      const from = proxy.routed.length;
      const { missing, failed, skipped, passed, output } = await runExtensionScenarios(url, version);
      expect(missing, "scenarios that wrote no checks").toEqual([]);
      expect(failed, "checks that failed or warned").toEqual([]);
      expect(skipped, `checks the suite skipped\n${output}`).toEqual(EXTENSION_SKIPS[version]);
      expect(passed).toBeGreaterThan(40);
      expect(new Set(proxy.routed.slice(from).map((routed) => routed.backend))).toEqual(new Set([0, 1, 2]));
    },
  );
});
