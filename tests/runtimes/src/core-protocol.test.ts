import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { run } from "../../../scripts/child-processes.js";
import { RUNTIME_NAMES, runtime } from "./runtimes.js";

// Core's protocol in memory, both eras (dist/core-protocol.js: core's test client against the shared fixture),
// run by Node, then by Bun and Deno, which must pass the same checks.
const SCRIPT = fileURLToPath(new URL("../dist/core-protocol.js", import.meta.url));

interface Verdict {
  passed: string[];
  failed: string[];
}

async function verdict(command: string, args: string[], env?: NodeJS.ProcessEnv): Promise<Verdict> {
  const { code, stdout, stderr } = await run(command, args, env ? { env } : {});
  expect(stderr).toBe("");
  const said = JSON.parse(stdout) as Verdict;
  expect(code, said.failed.join("\n")).toBe(0);
  return said;
}

let onNode: Verdict;
beforeAll(async () => {
  onNode = await verdict(process.execPath, [SCRIPT]);
});

it("passes every check on Node, both eras", () => {
  expect(onNode.failed).toEqual([]);
  expect(onNode.passed.filter((label) => label.startsWith("2025-11-25: "))).toHaveLength(14);
  expect(onNode.passed.filter((label) => label.startsWith("2026-07-28: "))).toHaveLength(15);
});

describe.each(RUNTIME_NAMES)("on %s", (name) => {
  const target = runtime(name);
  it("passes the same checks as on Node, both eras", async () => {
    const said = await verdict(target.command, target.args(SCRIPT), target.env());
    expect(said).toEqual(onNode);
  });
});
