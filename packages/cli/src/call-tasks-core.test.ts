import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO, runCli, startHttp } from "./run-cli.test-util.js";

// Build first. toolsmith call in the handshake era against a server with 2025-11-25's own tasks (the conformance
// server's fixtures over HTTP), and toolsmith task follow|result|cancel on a task left running by --no-wait.
const CONFORMANCE = join(REPO, "examples/conformance-server/dist/main.js");

let server: Awaited<ReturnType<typeof startHttp>>;
beforeAll(async () => {
  server = await startHttp(CONFORMANCE);
});
afterAll(() => server.stop());

describe("toolsmith call --era legacy, a tool that runs as a 2025-11-25 task", () => {
  it("waits for the task, showing its status, and prints the result (tasks/result)", async () => {
    const run = await runCli(["call", "--era", "legacy", server.url, "slow_compute", "seconds=0.3", "label=sum"]);
    expect([run.code, run.stdout]).toEqual([0, "Computed sum after 0.3s\n"]);
    expect(run.stderr).toContain("slow_compute: working\n");
  });

  it("answers the task's question (elicitation/create tied to the task) from --answer", async () => {
    const answer = ["--answer", '{"confirm":true}'];
    const run = await runCli(["call", "--era", "legacy", ...answer, server.url, "confirm_delete", "filename=a.txt"]);
    expect([run.code, run.stdout]).toEqual([0, "Deleted a.txt\n"]);
  });

  it("a tool's error result exits 1 with it; a task failed with a protocol error prints the error", async () => {
    const tool = await runCli(["call", "--era", "legacy", server.url, "failing_job"]);
    expect([tool.code, tool.stdout]).toEqual([1, "The job failed: the input file is missing\n"]);
    const failed = await runCli(["call", "--era", "legacy", server.url, "protocol_error_job"]);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/task \S+ failed with error -32603: The job hit an internal error/);
  });

  it("--no-wait prints the Task; another session cannot reach a task made without sign-in (it is its session's)", async () => {
    const run = await runCli(["call", "--era", "legacy", "--no-wait", server.url, "slow_compute", "seconds=0.1"]);
    expect(run.code).toBe(0);
    const task = JSON.parse(run.stdout) as { taskId: string };
    expect(task).toMatchObject({ status: "working", ttl: expect.any(Number) });
    expect(run.stderr).toContain(`follow it: toolsmith task follow ${server.url} ${task.taskId}`);
    const follow = await runCli(["task", "follow", "--era", "legacy", server.url, task.taskId]);
    expect(follow.code).toBe(1);
    expect(follow.stderr).toContain(`the server knows no task ${task.taskId} of yours`);
  });
});

describe("toolsmith task follow|result|cancel (the tasks extension, 2026-07-28)", () => {
  it("follows a task left running to its result", async () => {
    const run = await runCli(["call", "--no-wait", server.url, "slow_compute", "seconds=0.3", "label=later"]);
    const { taskId } = JSON.parse(run.stdout) as { taskId: string };
    const follow = await runCli(["task", "follow", server.url, taskId]);
    expect([follow.code, follow.stdout]).toEqual([0, "Computed later after 0.3s\n"]);
    const result = await runCli(["task", "result", server.url, taskId]);
    expect([result.code, result.stdout]).toEqual([0, "Computed later after 0.3s\n"]);
  });

  it("says a running task has no result yet, cancels it, then says it was cancelled", async () => {
    const run = await runCli(["call", "--no-wait", server.url, "slow_compute", "seconds=600"]);
    const { taskId } = JSON.parse(run.stdout) as { taskId: string };
    const early = await runCli(["task", "result", server.url, taskId]);
    expect(early.code).toBe(1);
    expect(early.stderr).toContain(
      `task ${taskId} is working: toolsmith task follow ${server.url} ${taskId} waits for it`,
    );
    const cancel = await runCli(["task", "cancel", server.url, taskId]);
    expect([cancel.code, cancel.stderr]).toEqual([0, `cancelled task ${taskId}\n`]);
    const after = await runCli(["task", "result", server.url, taskId]);
    expect(after.code).toBe(1);
    expect(after.stderr).toContain(`task ${taskId} was cancelled`);
  });

  it("refuses an unknown action and an id of no task", async () => {
    expect((await runCli(["task", "pause", server.url, "x"])).code).toBe(2);
    const unknown = await runCli(["task", "result", server.url, crypto.randomUUID()]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("knows no task");
  });
});
