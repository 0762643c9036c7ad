import { readFileSync } from "node:fs";
import { allProcesses, isAlive, type ProcessInfo, processInfo } from "./child-processes.js";
import { until } from "./wait.js";

/** The environment variable that marks every process a test run starts (they inherit it). */
export const RUN_MARK = "TOOLSMITH_TEST_RUN";
/** How long processes on their way out (a test file's last children, its worker) have to go, by default. */
const SETTLE_MS = 2 * 60_000;

/** A process that outlived the tests, said with its command line. */
export interface Leftover extends ProcessInfo {
  command: string;
}

const read = (path: string) => {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
};

/**
 * Start watching this test run's processes (Linux: /proc): every process started from now on with our mark in its
 * environment, and, for the outermost run, every process of our process group started after us (a child spawned
 * with a bare environment loses the mark, not the group). A run inside a test (vitest on a fixture) has the outer
 * run's mark and watches only its own.
 */
export function watchRun(settleMs = SETTLE_MS): { leftovers(): Promise<Leftover[]> } {
  const outermost = process.env[RUN_MARK] === undefined;
  const mark = `${RUN_MARK}=${process.pid}-${Date.now()}`;
  process.env[RUN_MARK] = mark.slice(RUN_MARK.length + 1);
  const self = processInfo(process.pid);
  const ancestors = new Set<number>();
  for (let info = self; info && info.pid > 1; info = processInfo(info.ppid)) ancestors.add(info.pid);

  const ours = (info: ProcessInfo): boolean => {
    // Ourselves, what started us, and our own children (vitest's workers and helpers) are not the tests'.
    if (!self || info.zombie || ancestors.has(info.pid) || info.ppid === self.pid || info.start < self.start) {
      return false;
    }
    if (outermost && info.pgid === self.pgid) return true;
    return read(`/proc/${info.pid}/environ`).split("\0").includes(mark);
  };

  return {
    /** Processes of this run still alive once the ones on their way out had time to go: each one a leak. */
    async leftovers() {
      if (!self) return [];
      await until(() => allProcesses().filter(ours).length === 0, "", settleMs, 100).catch(() => {});
      return allProcesses()
        .filter(ours)
        .filter((info) => isAlive(info.pid, info.start))
        .map((info) => ({ ...info, command: read(`/proc/${info.pid}/cmdline`).split("\0").join(" ").trim() }));
    },
  };
}
