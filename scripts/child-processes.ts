import { type ChildProcess, spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { until, WAIT_MS, within } from "./wait.js";

/** How long a process asked to stop (SIGTERM) has before it is killed, at a test's teardown. */
const STOP_GRACE_MS = 10_000;

/** A process as /proc shows it (Linux). */
export interface ProcessInfo {
  pid: number;
  ppid: number;
  pgid: number;
  /** Clock ticks after boot: with the pid, tells a process from a later one that got its pid. */
  start: number;
  zombie: boolean;
}

/** One process's /proc/<pid>/stat, or undefined when it is gone or there is no /proc. */
export function processInfo(pid: number): ProcessInfo | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  // The command name, in parentheses, may hold spaces and parentheses: the fields start after the last ")".
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return {
    pid,
    ppid: Number(fields[1]),
    pgid: Number(fields[2]),
    start: Number(fields[19]),
    zombie: fields[0] === "Z" || fields[0] === "X",
  };
}

/** Every process /proc lists (empty where there is no /proc). */
export function allProcesses(): ProcessInfo[] {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return [];
  }
  return entries.flatMap((name) => (/^\d+$/.test(name) ? (processInfo(Number(name)) ?? []) : []));
}

/** Whether a process is there and not a zombie (one that ended, not yet reaped, is gone for our purposes). */
export function isAlive(pid: number, start?: number): boolean {
  const info = processInfo(pid);
  if (info) return !info.zombie && (start === undefined || info.start === start);
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The processes below `pid` now, children first (Linux; empty elsewhere). */
export function descendants(pid: number): ProcessInfo[] {
  const all = allProcesses();
  const found: ProcessInfo[] = [];
  const parents = new Set([pid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const info of all) {
      if (parents.has(info.ppid) && !parents.has(info.pid)) {
        parents.add(info.pid);
        found.push(info);
        grew = true;
      }
    }
  }
  return found;
}

/** Resolves once process `pid` is gone (not its child: no exit event to wait for); rejects after `ms`. */
export async function gone(pid: number, what: string, ms = WAIT_MS): Promise<void> {
  await until(() => !isAlive(pid), what, ms, 25);
}

const tracked = new Set<ChildProcess>();

/** Remember a child until it exits: the end of its test file ends it, whether the test passed or not. */
export function track<T extends ChildProcess>(child: T): T {
  if (child.exitCode !== null || child.signalCode !== null) return child;
  tracked.add(child);
  child.once("exit", () => tracked.delete(child));
  return child;
}

/** The child's exit, once it comes; rejects after `ms`, naming `what` (the child is left to the teardown). */
export function exited(
  child: ChildProcess,
  what: string,
  ms = WAIT_MS,
): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  }
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  return within(exit, what, ms);
}

/**
 * End a child and every process below it: SIGTERM to all of them, then SIGKILL to whatever is still there after a
 * grace period. Resolves once they are all gone.
 */
export async function end(child: ChildProcess): Promise<void> {
  if (child.pid === undefined) return;
  const tree = descendants(child.pid);
  const running = () => child.exitCode === null && child.signalCode === null;
  const left = () => (running() ? 1 : 0) + tree.filter((info) => isAlive(info.pid, info.start)).length;
  const send = (signal: NodeJS.Signals) => {
    if (running()) child.kill(signal);
    for (const info of tree) {
      try {
        if (isAlive(info.pid, info.start)) process.kill(info.pid, signal);
      } catch {}
    }
  };
  send("SIGTERM");
  const stopped = await until(() => left() === 0, "", STOP_GRACE_MS).then(
    () => true,
    () => false,
  );
  if (stopped) return;
  send("SIGKILL");
  await until(() => left() === 0, `pid ${child.pid} and the processes below it to die of SIGKILL`);
}

/** End every child still running that was tracked in this test file (the setup file calls it after the file). */
export async function endTracked(): Promise<void> {
  await Promise.all([...tracked].map((child) => end(child)));
}

export interface Outcome {
  /** The process's id (with `detached`, also its process group's). */
  pid: number | undefined;
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Run a command to its end with `input` (default none) on its stdin; resolves with its exit and both streams, and
 * never for a non-zero exit alone. Rejects after `ms`, naming the command and showing what it said so far.
 */
export async function run(
  command: string,
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string; ms?: number; detached?: boolean } = {},
): Promise<Outcome> {
  const child = track(
    spawn(command, [...args], {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ["pipe", "pipe", "pipe"],
      // A group of its own: what it started can be found after it (Outcome.pid names the group).
      detached: options.detached,
    }),
  );
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  child.stdin.on("error", () => {});
  child.stdin.end(options.input ?? "");
  const spawnError = new Promise<never>((_, reject) => child.once("error", reject));
  spawnError.catch(() => {});
  const closed = new Promise<void>((resolve) => child.once("close", () => resolve()));
  const where = options.cwd ? ` in ${options.cwd}` : "";
  const what = `\`${[command, ...args].join(" ")}\`${where} to exit`;
  try {
    const { code, signal } = await Promise.race([exited(child, what, options.ms), spawnError]);
    // Both streams to their end: a process it left behind holding them is a leak worth failing for.
    await within(closed, `the output of \`${command}\` to end (a process it started still holds it?)`);
    return { pid: child.pid, code, signal, stdout, stderr };
  } catch (error) {
    await end(child);
    throw new Error(`${(error as Error).message}\nstdout so far:\n${stdout}\nstderr so far:\n${stderr}`);
  }
}
