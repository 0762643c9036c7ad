import type { ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { end } from "../../../scripts/child-processes.js";
import { spawnHttp } from "../../../scripts/spawn-http.js";
import {
  REQUIREMENT_SETS,
  runConformance,
  SUITE_SKIPS,
} from "../../conformance-server/src/conformance-run.test-util.js";

// Build first (npx -y pnpm@12.4.2 run build). The official conformance suite against the gateway (dist/main.js
// --http) in front of the conformance server (examples/conformance-server, dist/main.js --http) as its remote,
// unprefixed, once per era the gateway speaks to the remote and per requirement set. What fails is listed, with
// why, in expected-failures/<era to the remote>--<requirement set>.yml; a listed check that passes fails the test.
const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
const gatewayMain = here("../dist/main.js");
const remoteMain = here("../../conformance-server/dist/main.js");
const LINK_ERAS = ["legacy", "2026-07-28"] as const;

/** The entries of an expected-failures file, as the suite reads them. */
function entries(file: string): string[] {
  return [...readFileSync(file, "utf8").matchAll(/^\s+-\s+(\S+)/gm)].map((match) => match[1] as string).sort();
}

describe("the official conformance suite through the gateway, the conformance server its remote", () => {
  let remote: ChildProcess | undefined;
  let remoteUrl = "";

  beforeAll(async () => {
    ({ child: remote, url: remoteUrl } = await spawnHttp([remoteMain, "--http"]));
  });

  afterAll(async () => {
    if (remote) await end(remote);
  });

  describe.each(LINK_ERAS)("the gateway speaking %s to the remote", (era) => {
    let gateway: ChildProcess | undefined;
    let url = "";

    beforeAll(async () => {
      ({ child: gateway, url } = await spawnHttp([gatewayMain, "--http", "--era", era, remoteUrl]));
    });

    afterAll(async () => {
      if (gateway) await end(gateway);
    });

    it.each(REQUIREMENT_SETS)("requirement set %s: every check passes but the expected failures", async (set) => {
      const file = here(`../expected-failures/${era}--${set}.yml`);
      const { missing, failed, skipped, code, expectedFailed, output } = await runConformance(url, set, file);
      expect(missing, "listed scenarios (scored or not) that wrote no results").toEqual([]);
      expect(failed, "checks that failed and are not expected to").toEqual([]);
      expect(skipped, "scenarios the suite itself skipped").toEqual(SUITE_SKIPS[set]);
      // Not scored scenarios too: an expected failure that passes must leave the list.
      expect(expectedFailed.sort(), "expected failures that did not fail").toEqual(entries(file));
      expect(code, output).toBe(0);
    });
  });
});
