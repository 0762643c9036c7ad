import { spawn } from "node:child_process";
import { CliError, EXIT } from "./exit-codes.js";
import type { LogSink } from "./log-sink.js";
import { lineSplitter, WireLog } from "./wire-log.js";

/** The exit code for a child that ended by `signal` or with `code`, as a shell reports it. */
export function exitCodeOf(code: number | null, signal: NodeJS.Signals | null): number {
  if (code !== null) return code;
  const numbers: Partial<Record<NodeJS.Signals, number>> = { SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGTERM: 15 };
  return 128 + (signal ? (numbers[signal] ?? 0) : 0);
}

/**
 * Run the server as a child with our stdin and stdout joined to its own, byte for byte, and describe every line
 * that crosses in the log; its stderr is ours. Resolves with the child's exit code.
 */
export function runWire(command: string, args: string[], sink: LogSink): Promise<number> {
  return new Promise((resolve, reject) => {
    const log = new WireLog(sink.write, sink.colors);
    const child = spawn(command, args, { stdio: ["pipe", "pipe", "inherit"] });
    log.header([command, ...args].join(" "));
    const toServer = lineSplitter((line) => log.line("in", line));
    const toHost = lineSplitter((line) => log.line("out", line));
    let spawned = false;
    child.once("spawn", () => {
      spawned = true;
    });
    child.once("error", (error) => {
      if (!spawned) reject(new CliError(`could not start ${command}: ${error.message}`, EXIT.connect));
    });
    // A server that exits while the host still writes: its stdin is gone, not our problem.
    child.stdin.on("error", () => {});
    process.stdin.on("data", (chunk: Buffer) => toServer.push(chunk));
    process.stdin.pipe(child.stdin);
    child.stdout.on("data", (chunk: Buffer) => toHost.push(chunk));
    child.stdout.pipe(process.stdout);
    const forward = (signal: NodeJS.Signals) => () => child.kill(signal);
    for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, forward(signal));
    child.once("close", (code, signal) => {
      toServer.end();
      toHost.end();
      process.stdin.unpipe(child.stdin);
      process.stdin.pause();
      sink.write(sink.colors.dim(`wire: the server exited (${signal ?? `code ${code}`})`));
      resolve(exitCodeOf(code, signal));
    });
  });
}
