import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, expect, it } from "vitest";
import { run } from "./child-processes.js";

// `@toolsmith/core/engine-suite` as an engine outside this repository gets it: core installed as it is published (its
// built dist, publishConfig's exports, no source condition) in a project of its own, whose vitest runs two role suites
// against an engine that plays only those roles. Tests elsewhere import the entry from src.

const root = fileURLToPath(new URL("..", import.meta.url));
const core = join(root, "packages/core");
const project = mkdtempSync(join(tmpdir(), "toolsmith-engine-suite-"));
afterAll(() => rmSync(project, { recursive: true, force: true }));

/** Core in `project`'s node_modules as npm would lay it out from the tarball, its dependencies and vitest beside it. */
function install(): void {
  const manifest = JSON.parse(readFileSync(join(core, "package.json"), "utf8"));
  const modules = join(project, "node_modules");
  const installed = join(modules, "@toolsmith/core");
  mkdirSync(installed, { recursive: true });
  const { devDependencies: _dev, publishConfig, ...published } = manifest;
  writeFileSync(join(installed, "package.json"), JSON.stringify({ ...published, ...publishConfig }, null, 2));
  cpSync(join(core, "dist"), join(installed, "dist"), {
    recursive: true,
    filter: (path) => !path.endsWith(".map") && !path.endsWith(".tsbuildinfo"),
  });
  for (const name of [...Object.keys(manifest.dependencies), "vitest"]) {
    mkdirSync(dirname(join(modules, name)), { recursive: true });
    symlinkSync(realpathSync(join(core, "node_modules", name)), join(modules, name));
  }
}

// The engine under test: the memory engine's EngineLifecycle and TaskStore members, and nothing else, so a suite
// that reached for another role would fail on a member that is not there.
const TEST = `import { createMemoryEngine } from "@toolsmith/core/engine";
import { lifecycleSuite, taskStoreSuite } from "@toolsmith/core/engine-suite";

const PLAYED = ["node", "shared", "start", "close", "onResume", "createTask", "loadTask", "changeTask", "answerTask",
  "takeAnswers", "followTask", "taskRunning", "taskFinished", "onOrphanTask"];

const make = async () => {
  const memory = createMemoryEngine();
  const engine = Object.fromEntries(PLAYED.map((member) => {
    const own = memory[member];
    return [member, typeof own === "function" ? own.bind(memory) : own];
  }));
  return { engines: [engine], cleanup: async () => memory.close() };
};

lifecycleSuite("tasks only", make);
taskStoreSuite("tasks only", make);
`;

interface Report {
  testResults: { assertionResults: { ancestorTitles: string[]; title: string; status: string }[] }[];
}

it("runs the role suites from the published entry against an engine of two roles", async () => {
  if (!existsSync(join(core, "dist/engine-suite/index.js"))) {
    throw new Error(`${core}/dist is not built: npx -y pnpm@12.4.2 run build`);
  }
  install();
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "outside", private: true, type: "module" }));
  writeFileSync(join(project, "tasks-only.test.ts"), TEST);
  const vitest = join(project, "node_modules/vitest/vitest.mjs");
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("VITEST")));
  const { code, stdout, stderr } = await run(
    process.execPath,
    [vitest, "run", "--root", project, "--reporter=default", "--reporter=json", "--outputFile.json=report.json"],
    { cwd: project, env: { ...env, NO_COLOR: "1" } },
  );
  expect(code, `${stdout}${stderr}`).toBe(0);
  const report = JSON.parse(readFileSync(join(project, "report.json"), "utf8")) as Report;
  const results = report.testResults.flatMap((file) => file.assertionResults);
  const by = (status: string) => results.filter((result) => result.status === status);
  expect(new Set(results.map((result) => result.ancestorTitles[0]))).toEqual(
    new Set(["lifecycle suite: tasks only", "task store suite: tasks only"]),
  );
  expect(by("failed")).toEqual([]);
  expect(by("passed").length).toBeGreaterThanOrEqual(10);
  // With one engine, only the tests that need two processes skip.
  expect(
    by("skipped")
      .map((result) => result.title)
      .sort(),
  ).toEqual([
    "gives a task its process left running to exactly one other process, once, unless finished or ended",
    "makes a running task change only while this process runs the task: refused, nothing written, otherwise",
    "tells its processes apart and says it is shared",
  ]);
});
