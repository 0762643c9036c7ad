import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exited, track } from "../../../scripts/child-processes.js";
import { BIN, REPO, runCli, startHttp } from "./run-cli.test-util.js";

// Build first. toolsmith call against servers that speak the tasks extension (SEP-2663): the conformance server's
// fixtures over HTTP and the issue tracker's report over stdio. Not a terminal here: progress comes as plain lines.
const CONFORMANCE = join(REPO, "examples/conformance-server/dist/main.js");
const ISSUES = join(REPO, "examples/issue-tracker/dist/main.js");

describe("toolsmith call shows a synchronous call's progress", () => {
  it.each(["legacy", "modern"])("--era %s: one plain line per notifications/progress", async (era) => {
    const run = await runCli(["call", "--era", era, "node", ISSUES, "import_issues", 'lines=["Crash|bug","Typo"]']);
    expect(run.code).toBe(0);
    // A plain line, no \r: stderr is not a terminal. (Later ones may race the result, which ends the call.)
    expect(run.stderr).toContain("import_issues: 0/2 importing\n");
    expect(run.stderr).not.toContain("\r");
  });
});

describe("toolsmith call, a tool that runs as a task", () => {
  let server: Awaited<ReturnType<typeof startHttp>>;
  beforeAll(async () => {
    server = await startHttp(CONFORMANCE);
  });
  afterAll(() => server.stop());

  it("waits for the task, showing its status, and prints the result as a synchronous call does", async () => {
    const run = await runCli(["call", server.url, "slow_compute", "seconds=0.3", "label=sum"]);
    expect([run.code, run.stdout]).toEqual([0, "Computed sum after 0.3s\n"]);
    expect(run.stderr).toContain("slow_compute: working\n");
  });

  it("answers the task's question from --answer (tasks/update)", async () => {
    const run = await runCli(["call", "--answer", '{"confirm":true}', server.url, "confirm_delete", "filename=a.txt"]);
    expect([run.code, run.stdout]).toEqual([0, "Deleted a.txt\n"]);
    expect(run.stderr).toContain("confirm_delete: input_required");
  });

  it("answers an input_required round before the task exists, then waits for the task", async () => {
    const run = await runCli(["call", "--answer", '{"name":"Alice"}', server.url, "test_tool_with_task"]);
    expect([run.code, run.stdout]).toEqual([0, "Task finished for Alice\n"]);
  });

  it("fails clearly (and cancels the task) when nobody can answer its question", async () => {
    const run = await runCli(["call", server.url, "confirm_delete", "filename=b.txt"]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`the tool asks "Delete b.txt?" and nobody is at a terminal to answer`);
  });

  it("a task that completes with isError exits 1; a failed task prints its error and exits 1", async () => {
    const tool = await runCli(["call", server.url, "failing_job"]);
    expect([tool.code, tool.stdout]).toEqual([1, "The job failed: the input file is missing\n"]);
    const failed = await runCli(["call", server.url, "protocol_error_job"]);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/task \S+ failed with error -32603: The job hit an internal error/);
  });

  it("--no-wait prints the task and leaves it running", async () => {
    const run = await runCli(["call", "--no-wait", server.url, "slow_compute", "seconds=0.1"]);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ resultType: "task", status: "working" });
  });

  it("Ctrl-C cancels the task (tasks/cancel) and exits 130", async () => {
    const child = track(
      spawn(process.execPath, [BIN, "call", server.url, "slow_compute", "seconds=60"], {
        env: { ...process.env, NO_COLOR: "1" },
        stdio: ["ignore", "pipe", "pipe"],
      }),
    );
    let stderr = "";
    await new Promise<void>((resolve) => {
      child.stderr.on("data", (chunk: Buffer) => {
        stderr += chunk.toString("utf8");
        if (stderr.includes("slow_compute: working")) resolve();
      });
    });
    child.kill("SIGINT");
    const { code } = await exited(child, "the CLI after Ctrl-C");
    expect(code).toBe(130);
    expect(stderr).toMatch(/cancelled task \S+/);
  });
});

describe("toolsmith call, the issue tracker's report as a task over stdio", () => {
  it("shows the report's progress, takes the publish answer, prints the report", async () => {
    const args = ["call", "--json", "--answer", '{"publish":true}', "node", ISSUES, "build_report", "seconds=0.5"];
    const run = await runCli(args);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).structuredContent).toEqual({ open: 0, closed: 0, byLabel: {}, published: true });
    expect(run.stderr).toContain("build_report: working");
  });

  it("Ctrl-C after the stdio server died (a terminal interrupts both) still exits 130", async () => {
    const child = track(
      spawn(process.execPath, [BIN, "call", "node", ISSUES, "build_report", "seconds=60"], {
        env: { ...process.env, NO_COLOR: "1" },
        stdio: ["ignore", "pipe", "pipe"],
      }),
    );
    let stderr = "";
    await new Promise<void>((resolve) => {
      child.stderr.on("data", (chunk: Buffer) => {
        stderr += chunk.toString("utf8");
        if (stderr.includes("build_report: working")) resolve();
      });
    });
    // The server goes first (Linux names a process's children in /proc), so tasks/cancel can never be answered.
    const server = Number(readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, "utf8").trim().split(" ")[0]);
    process.kill(server, "SIGKILL");
    child.kill("SIGINT");
    const { code } = await exited(child, "the CLI after Ctrl-C");
    expect(code).toBe(130);
    expect(stderr).toMatch(/interrupted; task \S+ not cancelled/);
  });
});
