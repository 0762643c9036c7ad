import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { end } from "../../../scripts/child-processes.js";
import type { SpawnedHttp } from "../../../scripts/spawn-http.js";
import { runConformance, SUITE_SKIPS } from "../../conformance-server/src/conformance-run.test-util.js";
import { bundle, STATE_KEY, serveOnWorkerd } from "./workerd.test-util.js";

// The official conformance suite's 2026-07-28 requirement set against the conformance server's fixtures served from a
// Worker under workerd (test/conformance-worker.ts).

/**
 * The checks a Worker cannot pass, pinned (docs/workers.md says why), so one that starts passing, or another that
 * fails, is noticed: the json-schema-2020-12 tool is not served (core's raw JSON Schema compiles with Ajv, which
 * generates code, and workerd refuses `new Function`); a task's handler never finishes (workerd stops a request's
 * work once its response is done, and a task runs after it), so every scenario that waits for a task's end fails.
 */
const WORKER_CANNOT = [
  "json-schema-2020-12:json-schema-2020-12-tool-found",
  "tasks-dispatch-and-envelope:tasks-result-type-complete-on-non-task-responses",
  "tasks-lifecycle:scenario-timeout",
  "tasks-mrtr-composition:sep-2663-mrtr-synchronous-before-task-creation",
  "tasks-mrtr-input:tasks-mrtr-partial-fulfillment",
  "tasks-mrtr-input:tasks-mrtr-tasks-update-resumes",
  "tasks-wire-fields:tasks-no-early-ttl-expiry",
  "tasks-wire-fields:tasks-no-related-task-meta-on-inlined-result",
];

describe("the official conformance suite against a Worker (workerd)", () => {
  let worker: SpawnedHttp | undefined;

  beforeAll(async () => {
    const script = await bundle(fileURLToPath(new URL("../test/conformance-worker.ts", import.meta.url)));
    worker = await serveOnWorkerd(script, { TOOLSMITH_STATE_KEY: STATE_KEY });
  });

  afterAll(async () => {
    if (worker) await end(worker.child);
  });

  it("passes every check of every scenario requirement set 2026-07-28 runs, but those a Worker cannot", async () => {
    const { missing, failed, skipped, output } = await runConformance(worker?.url ?? "", "2026-07-28");
    expect(missing, "listed scenarios (scored or not) that wrote no results").toEqual([]);
    const checks = failed.map((line) => line.slice(0, line.indexOf(" ")));
    expect([...new Set(checks)].sort(), `checks that failed:\n${failed.join("\n")}\n${output}`).toEqual(WORKER_CANNOT);
    expect(skipped, "scenarios the suite itself skipped").toEqual(SUITE_SKIPS["2026-07-28"]);
  });
});
