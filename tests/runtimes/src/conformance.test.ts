import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  REQUIREMENT_SETS,
  runConformance,
  SUITE_SKIPS,
} from "../../../examples/conformance-server/src/conformance-run.test-util.js";
import { RUNTIME_NAMES, runtime } from "./runtimes.js";
import { type RuntimeProcess, startRuntime } from "./spawn-runtime.js";

// The official conformance suite, both requirement sets, against the conformance example's built server
// (dist/main.js --http: Toolsmith's listen) running under Bun and under Deno; the same verdict as on Node
// (examples/conformance-server/src/conformance.test.ts).
const SERVER = fileURLToPath(new URL("../../../examples/conformance-server/dist/main.js", import.meta.url));

describe.each(RUNTIME_NAMES)("the conformance suite against the HTTP server on %s", (name) => {
  const target = runtime(name);
  let server: RuntimeProcess | undefined;

  beforeAll(async () => {
    server = await startRuntime(target, SERVER, ["--http"], /listening on (http:\/\/\S+)/, { PORT: "0" });
  });
  afterAll(async () => {
    await server?.stop();
  });

  it.each(REQUIREMENT_SETS)("passes every check of every scenario requirement set %s runs", async (set) => {
    const { missing, failed, skipped, code, output } = await runConformance(server?.said as string, set);
    expect(missing, "listed scenarios (scored or not) that wrote no results").toEqual([]);
    expect(failed, "checks that failed, in any scenario the suite ran").toEqual([]);
    expect(skipped, "scenarios the suite itself skipped").toEqual(SUITE_SKIPS[set]);
    expect(code, output).toBe(0);
  });
});
