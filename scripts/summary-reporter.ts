import { relative } from "node:path";
import type { Reporter, SerializedError, TestModule, Vitest } from "vitest/node";
import { watchRun } from "./leftover-processes.js";

// One plain closing line, "N passed, N failed, N skipped", for CI logs. A test file that does not load (or fails
// outside any test) and an unhandled error each count as one failure: vitest exits 1 for them too. So does each
// process the tests started that outlived them (it is ended then).
export default class SummaryReporter implements Reporter {
  #root = process.cwd();
  readonly #run: ReturnType<typeof watchRun>;

  /** `settleMs`: how long processes on their way out at the end have to go before they count as left over. */
  constructor(options: { settleMs?: number } = {}) {
    this.#run = watchRun(options.settleMs);
  }

  onInit(vitest: Vitest): void {
    this.#root = vitest.config.root;
  }

  async onTestRunEnd(
    testModules: ReadonlyArray<TestModule>,
    unhandledErrors: ReadonlyArray<SerializedError>,
  ): Promise<void> {
    const counts = { passed: 0, failed: 0, skipped: 0 };
    const notes: string[] = [];
    for (const module of testModules) {
      let failedTests = 0;
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === "passed") counts.passed++;
        else if (state === "failed") failedTests++;
        else counts.skipped++;
      }
      counts.failed += failedTests;
      const [error] = module.errors();
      if (failedTests === 0 && module.state() === "failed") {
        counts.failed++;
        const why = error ? `: ${error.name ?? "Error"}: ${(error.message ?? "").split("\n")[0]}` : "";
        notes.push(`failed outside its tests (did not load?): ${relative(this.#root, module.moduleId)}${why}`);
      }
    }
    if (unhandledErrors.length > 0) {
      counts.failed += unhandledErrors.length;
      notes.push(`${unhandledErrors.length} unhandled error${unhandledErrors.length === 1 ? "" : "s"}`);
    }
    for (const leftover of await this.#run.leftovers()) {
      counts.failed++;
      notes.push(`outlived the tests (killed now): pid ${leftover.pid} ${leftover.command}`);
      try {
        process.kill(leftover.pid, "SIGKILL");
      } catch {}
      process.exitCode = 1;
    }
    const lines = [...notes, `${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`];
    process.stdout.write(`\n${lines.join("\n")}\n`);
  }
}
