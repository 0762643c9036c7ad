import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { statSync } from "node:fs";
import { relative, resolve as resolvePath } from "node:path";
import { watch } from "chokidar";
import { colorsFor } from "../colors.js";
import { usage } from "../exit-codes.js";
import type { LogSink } from "../log-sink.js";
import { exitCodeOf } from "../wire.js";
import { lineSplitter, WireLog } from "../wire-log.js";
import { Pending } from "./pending.js";
import { nearestTsconfig } from "./tsconfig.js";

export interface DevOptions {
  watch: boolean;
  color: boolean;
  /** Where the wire goes with `--wire`. */
  wire?: LogSink;
}

const LIST_CHANGED = ["tools", "resources", "prompts"].map(
  (kind) => `{"jsonrpc":"2.0","method":"notifications/${kind}/list_changed"}`,
);

/** How long a server asked to stop may take before it is killed. */
const STOP_GRACE_MS = 3000;

/** Ask a server process to stop with `signal`; one that is still there after the grace period is killed. */
function stop(proc: ChildProcess, signal: NodeJS.Signals): void {
  proc.kill(signal);
  const kill = setTimeout(() => proc.kill("SIGKILL"), STOP_GRACE_MS).unref();
  proc.once("exit", () => clearTimeout(kill));
}

/**
 * Run a TypeScript entry as a stdio server between the host and us, restarting it when a file it loaded
 * changes. A handshake-era host keeps its session: the new process is sent the host's `initialize` again and
 * the host is told the lists changed; requests the old process did not answer get an error.
 */
export function runDev(entryArg: string, serverArgs: string[], options: DevOptions): Promise<number> {
  const entry = resolvePath(entryArg);
  const stat = statSync(entry, { throwIfNoEntry: false });
  if (!stat?.isFile()) throw usage(`there is no file ${entryArg}`);
  const c = colorsFor(process.stderr, options.color);
  const status = (text: string) => process.stderr.write(`${c.blue("toolsmith dev")} ${text}\n`);
  const register = new URL("./register.js", import.meta.url).href;
  const wire = options.wire ? new WireLog(options.wire.write, options.wire.colors) : undefined;
  const show = (path: string) =>
    relative(process.cwd(), path).startsWith("..") ? path : relative(process.cwd(), path);

  return new Promise((resolve) => {
    let child: ChildProcess | undefined;
    let initialize: string | undefined;
    let initialized: string | undefined;
    /** Host lines held while a new process is started and re-initialized. */
    let held: string[] | undefined;
    const pending = new Pending();
    // The id of our own replayed initialize: one no host can send, asked for only while the replay is out.
    const replayId = `toolsmith-dev/replay/${randomUUID()}`;
    let replaying = false;
    let restarting = false;
    let hostEnded = false;
    let generation = 0;

    const watcher = options.watch ? watch([], { ignoreInitial: true }) : undefined;
    const tsconfig = nearestTsconfig(entry);
    if (tsconfig) watcher?.add(tsconfig);
    let timer: NodeJS.Timeout | undefined;
    watcher?.on("all", (_event, path) => {
      clearTimeout(timer);
      timer = setTimeout(() => restart(`${show(path)} changed`), 100);
    });

    const toHost = (line: string) => {
      wire?.line("out", line);
      process.stdout.write(`${line}\n`);
    };
    const toServer = (line: string) => {
      wire?.line("in", line);
      child?.stdin?.write(`${line}\n`);
    };

    const finish = (code: number) => {
      void watcher?.close();
      clearTimeout(timer);
      process.stdin.pause();
      resolve(code);
    };

    function start(): void {
      const started = Date.now();
      const mine = ++generation;
      // TOOLSMITH_DEV: what the server reads besides modules (a folder of skills) it reports to be watched too.
      const proc = spawn(process.execPath, ["--enable-source-maps", "--import", register, entry, ...serverArgs], {
        stdio: ["pipe", "pipe", "inherit", "ipc"],
        env: { ...process.env, TOOLSMITH_DEV: "1" },
      });
      child = proc;
      proc.stdin?.on("error", () => {});
      proc.on("message", (message: { toolsmithDevLoaded?: string }) => {
        if (typeof message?.toolsmithDevLoaded === "string") watcher?.add(message.toolsmithDevLoaded);
      });
      const lines = lineSplitter((line) => fromServer(line));
      proc.stdout?.on("data", (chunk: Buffer) => lines.push(chunk));
      proc.once("spawn", () => status(c.dim(`started ${show(entry)} (pid ${proc.pid})`)));
      proc.once("close", (code, signal) => {
        lines.end();
        if (mine !== generation) return;
        child = undefined;
        for (const line of pending.fail(
          "toolsmith dev: the server stopped before answering (it restarted or exited)",
        )) {
          toHost(line);
        }
        if (restarting) {
          restarting = false;
          start();
          return;
        }
        const exit = exitCodeOf(code, signal);
        if (hostEnded || !watcher) return finish(exit);
        const ran = Date.now() - started;
        status(
          c.yellow(`the server exited (${signal ?? `code ${code}`}) after ${ran} ms; restarting on the next change`),
        );
      });
      if (initialize && !held?.includes(initialize)) {
        // The host did its handshake with an earlier process: do it again, under an id of ours.
        held ??= [];
        const replay = JSON.parse(initialize) as { id: unknown };
        replay.id = replayId;
        replaying = true;
        toServer(JSON.stringify(replay));
      } else if (held) {
        const queue = held;
        held = undefined;
        for (const queued of queue) deliver(queued);
      }
    }

    function restart(why: string): void {
      status(`${why}; restarting`);
      if (!child) {
        start();
        return;
      }
      restarting = true;
      stop(child, "SIGTERM");
    }

    function fromServer(line: string): void {
      let message: { id?: unknown; method?: unknown } | undefined;
      try {
        message = JSON.parse(line);
      } catch {}
      if (replaying && message?.id === replayId && message.method === undefined) {
        replaying = false;
        wire?.line("out", line);
        if (initialized) toServer(initialized);
        const queue = held ?? [];
        held = undefined;
        for (const notice of LIST_CHANGED) toHost(notice);
        for (const queued of queue) deliver(queued);
        status(c.green("restarted; the host's session goes on"));
        return;
      }
      pending.answered(line);
      toHost(line);
    }

    function fromHost(line: string): void {
      let message: { id?: unknown; method?: unknown } | undefined;
      try {
        message = JSON.parse(line);
      } catch {}
      if (message?.method === "initialize") initialize = line;
      if (message?.method === "notifications/initialized") initialized = line;
      if (held || !child) {
        held ??= [];
        held.push(line);
      } else deliver(line);
    }

    /** A host line to the server, remembered until answered when it is a request (or a batch of them). */
    function deliver(line: string): void {
      pending.sent(line);
      toServer(line);
    }

    const input = lineSplitter(fromHost);
    process.stdin.on("data", (chunk: Buffer) => input.push(chunk));
    process.stdin.on("end", () => {
      input.end();
      hostEnded = true;
      if (child) child.stdin?.end();
      else finish(0);
    });
    for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
      process.on(signal, () => {
        hostEnded = true;
        if (child) stop(child, signal);
        else finish(exitCodeOf(null, signal));
      });
    }
    // Leaving by any other way (a crash, a broken stdout): the server goes too. A SIGKILL runs nothing here; for
    // that the server watches its IPC channel (register.ts).
    process.once("exit", () => child?.kill("SIGTERM"));
    start();
  });
}
