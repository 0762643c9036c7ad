import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { run } from "../../../scripts/child-processes.js";
import { BIN, REPO, runCli } from "./run-cli.test-util.js";

// `toolsmith add` in a project create-toolsmith generates, in each dialect: what it writes passes that project's
// own lint and type-check, and (legacy) `toolsmith dev` runs it without a decorator-metadata warning.
const CREATE = join(REPO, "packages/create-toolsmith/dist/cli.js");
const root = mkdtempSync(join(tmpdir(), "toolsmith-add-scaffold-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Run a node script in `cwd` to its end (WAIT_MS at most, then it fails naming it); its exit code and output. */
async function node(args: string[], cwd: string): Promise<{ code: number | null; output: string }> {
  const { code, stdout, stderr } = await run(process.execPath, args, { cwd, env: { ...process.env, NO_COLOR: "1" } });
  return { code, output: `${stdout}${stderr}` };
}

// What an install would give the project: this checkout's packages and the versions it pins.
function linkDependencies(dir: string): void {
  const links: [string, string][] = [
    ["@toolsmith/core", "packages/core"],
    ["@toolsmith/decorators", "packages/decorators"],
    ["@toolsmith/transport-stdio", "packages/transport-stdio"],
    ["@toolsmith/vitest", "packages/vitest"],
    ["@toolsmith/cli", "packages/cli"],
    ["@types/node", "node_modules/@types/node"],
    ["@biomejs/biome", "node_modules/@biomejs/biome"],
    ["zod", "packages/cli/node_modules/zod"],
    ["vitest", "packages/cli/node_modules/vitest"],
  ];
  for (const [name, target] of links) {
    mkdirSync(dirname(join(dir, "node_modules", name)), { recursive: true });
    symlinkSync(join(REPO, target), join(dir, "node_modules", name), "dir");
  }
}

/** `toolsmith dev --no-watch src/main.ts` as a host runs it: one initialize and one call, then stdin ends. */
function devRun(cwd: string, call: Record<string, unknown>): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, "dev", "--no-watch", "src/main.ts"], {
      cwd,
      env: { ...process.env, NO_COLOR: "1" },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
      // The call's reply is the second line: then the host goes away, and dev with it.
      if (stdout.split("\n").length > 2) child.stdin.end();
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    child.on("error", reject);
    child.on("close", () => resolve({ stdout, stderr }));
    const initialize = { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } };
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: initialize })}\n`);
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: call })}\n`);
  });
}

describe.each(["tc39", "legacy"])("toolsmith add in a generated %s project", (dialect) => {
  // Each step has its own deadline (WAIT_MS): a whole project's lint, type-check and tests, on a loaded machine.
  it("writes tools, resources and prompts that pass the project's lint, type-check and tests", {
    timeout: 15 * 60_000,
  }, async () => {
    const dir = join(root, dialect);
    const created = await node([CREATE, dir, "--yes", "--dialect", dialect, "--transport", "stdio"], root);
    expect(created.code).toBe(0);
    linkDependencies(dir);
    for (const [kind, name] of [
      ["tool", "reopen_issue"],
      ["resource", "readme"],
      ["prompt", "triage"],
      // Names that once broke the project: past biome's line width, McpServer's own, keywords, leading digits.
      ["tool", "synchronize_all_external_issue_trackers_right_now_please_ok"],
      ["prompt", "summarize-every-open-issue-of-the-external-trackers-for-me-now"],
      ["resource", "the_complete_history_of_every_external_issue_tracker_so_far_ok"],
      ["tool", "name"],
      ["prompt", "description"],
      ["tool", "to_server"],
      ["tool", "delete"],
      ["tool", "2fa_check"],
    ]) {
      expect(await runCli(["add", kind as string, name as string], { cwd: dir })).toMatchObject({
        code: 0,
        stderr: "",
      });
    }
    // A name that is a method name is kept (the CLI's README says so); one that is not is camel-cased.
    const server = readFileSync(join(dir, "src/server.ts"), "utf8");
    expect(server).toContain("  reopen_issue({ text }: Args<typeof ReopenIssue>) {");
    expect(server).toContain("  summarizeEveryOpenIssueOfTheExternalTrackersForMeNow({");
    // The scripts the project runs: npm run lint is biome check, npm test starts with this tsc.
    const lint = await node([join(dir, "node_modules/@biomejs/biome/bin/biome"), "check", "."], dir);
    expect(lint.output).toContain("No fixes applied");
    expect(lint.code).toBe(0);
    const tsc = await node([join(REPO, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.test.json"], dir);
    expect(tsc).toEqual({ code: 0, output: "" });
    // npm test's other half: the project's tests, the scaffold's own and those add wrote, pass.
    const tests = await node([join(dir, "node_modules/vitest/vitest.mjs"), "run"], dir);
    expect(tests.output).not.toContain("FAIL");
    expect(tests.code).toBe(0);

    const { stdout, stderr } = await devRun(dir, { name: "reopen_issue", arguments: { text: "#7" } });
    expect(stdout).toContain('"text":"reopen_issue: #7"');
    expect(stderr).not.toContain("metadata");
  });
});
