import type { ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cleanEnv, INSPECTOR, NODE22, ok, serveHttp, sh, WORKSPACE } from "./process.test-util.js";

// The MCP Inspector CLI (a real peer, on Node 22, which drives tasks with @modelcontextprotocol/ext-tasks) against
// tests/transports' task-tools server as built, over stdio and Streamable HTTP, in both eras it negotiates. In the
// handshake era ("legacy": 2025-11-25) it calls a tool as a task only when the tool lists taskSupport "required"
// (an "optional" one gets a plain tools/call), then polls tasks/get and reads tasks/result; in 2026-07-28 ("modern")
// it declares the tasks extension and the server makes the task. Needs `npx -y pnpm@12.4.2 run build` first.
const SERVER = join(WORKSPACE, "tests/transports/dist/task-tools-server.js");
const root = mkdtempSync(join(tmpdir(), "inspector-tasks-"));
let http: { url: string; child: ChildProcess };

beforeAll(async () => {
  http = await serveHttp(SERVER, ["--http"], root);
});
afterAll(() => {
  http.child.kill();
  rmSync(root, { recursive: true, force: true });
});

const targets = {
  stdio: () => [process.execPath, SERVER],
  http: () => [http.url],
};
type Target = keyof typeof targets;
const ERAS = ["legacy", "modern"] as const;
const env = () => cleanEnv({ MCP_CATALOG_PATH: join(root, "inspector-catalog.json") });
const cli = (target: Target, era: string, args: string[]) => [
  INSPECTOR,
  "--cli",
  ...targets[target](),
  "--protocol-era",
  era,
  "--method",
  ...args,
];

async function inspect(target: Target, era: string, ...args: string[]): Promise<Record<string, unknown>> {
  const { stdout } = await ok(NODE22, cli(target, era, args), root, env());
  return JSON.parse(stdout) as Record<string, unknown>;
}

describe.each(["stdio", "http"] as const)("the Inspector CLI and a task tool over %s", (target) => {
  it("lists count_words with the taskSupport 2025-11-25 gives it (2026-07-28 lists none)", async () => {
    const listed = async (era: string) => {
      const { tools } = (await inspect(target, era, "tools/list")) as { tools: { name: string }[] };
      return tools.find((tool) => tool.name === "count_words");
    };
    expect(await listed("legacy")).toMatchObject({ execution: { taskSupport: "required" } });
    const modern = await listed("modern");
    expect(modern).toBeDefined();
    expect(modern).not.toHaveProperty("execution");
  });

  it.each(ERAS)("%s: calls count_words as a task and prints the task's result", async (era) => {
    const result = await inspect(target, era, "tools/call", "--tool-name", "count_words", "--tool-arg", "text=a b c");
    expect(result).toMatchObject({ structuredContent: { words: 3, task: expect.any(String) }, isError: false });
    const { task } = result.structuredContent as { task: string };
    // 2025-11-25's tasks/result names its task; the extension's inlined result does not.
    if (era === "legacy") expect(result._meta).toEqual({ "io.modelcontextprotocol/related-task": { taskId: task } });
    else expect(result).toMatchObject({ resultType: "complete" });
  });

  it("legacy: an optional task tool is called without a task (the CLI asks for one only when required)", async () => {
    const args = ["tools/call", "--tool-name", "count_words_maybe", "--tool-arg", "text=a b"];
    expect(await inspect(target, "legacy", ...args)).toMatchObject({ structuredContent: { words: 2, task: null } });
  });

  it("modern: an optional task tool runs as a task (the client declares the tasks extension)", async () => {
    const args = ["tools/call", "--tool-name", "count_words_maybe", "--tool-arg", "text=a b"];
    expect(await inspect(target, "modern", ...args)).toMatchObject({
      structuredContent: { words: 2, task: expect.any(String) },
    });
  });

  it.each(ERAS)("%s: a task that asks fails, as the CLI declares no elicitation, and it says why", async (era) => {
    const outcome = await sh(NODE22, cli(target, era, ["tools/call", "--tool-name", "ask_name"]), root, env());
    expect(outcome.code).not.toBe(0);
    expect(outcome.stdout).toBe("");
    expect(JSON.parse(outcome.stderr.split("\n")[0] ?? "")).toEqual({
      error: {
        code: "error",
        message: "This request needs the client's elicitation (form mode) capability, which the client did not declare",
      },
    });
  });
});
