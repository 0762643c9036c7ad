import { Console } from "node:console";

/** While installed, anything user code writes to stdout (console.log, process.stdout.write) goes to stderr. */
export interface StdoutRedirect {
  /** Write to the real stdout: the protocol's own channel. */
  readonly write: (chunk: string, callback?: (error?: Error | null) => void) => boolean;
  restore(): void;
}

type Write = NodeJS.WriteStream["write"];

interface Installed {
  original: Write;
  hadOwn: boolean;
  count: number;
  /** Puts back the console methods moved to stderr (Bun, Deno), if any were. */
  restoreConsole?: () => void;
}

// The console methods that print to stdout. Bun's and Deno's console writes them to file descriptor 1 itself, never
// through process.stdout.write, so while stdout is redirected they print with a console on stderr instead.
const STDOUT_METHODS = [
  "log",
  "info",
  "debug",
  "dir",
  "dirxml",
  "table",
  "count",
  "group",
  "groupCollapsed",
  "timeLog",
  "timeEnd",
] as const;

function consoleBypassesStdout(stdout: NodeJS.WritableStream): boolean {
  return stdout === process.stdout && ("bun" in process.versions || "deno" in process.versions);
}

function moveConsole(stderr: NodeJS.WritableStream): () => void {
  const onStderr = new Console({ stdout: stderr, stderr });
  const target = console as unknown as Record<string, unknown>;
  const saved = STDOUT_METHODS.map((name) => [name, Object.getOwnPropertyDescriptor(console, name)] as const);
  for (const name of STDOUT_METHODS) target[name] = (onStderr[name] as (...args: unknown[]) => void).bind(onStderr);
  return () => {
    for (const [name, descriptor] of saved) {
      if (descriptor) Object.defineProperty(console, name, descriptor);
      else delete target[name];
    }
  };
}

// Shared by every copy of this package in the process, of any version: the key stays as it was first published.
const REDIRECTED = Symbol.for("toolsmith.stdoutGuard");

type Redirected = NodeJS.WritableStream & { [REDIRECTED]?: Installed };

/** Write to `stdout` itself, past any redirect installed on it: protocol lines when no redirect of one's own is wanted. */
export function writeThrough(stdout: NodeJS.WritableStream): StdoutRedirect["write"] {
  const target = stdout as Redirected;
  return (chunk, callback) => {
    const write = (target[REDIRECTED]?.original ?? stdout.write) as StdoutRedirect["write"];
    return write.call(stdout, chunk, callback);
  };
}

/**
 * Route `stdout.write` (and so every `console` method that prints to stdout) to `stderr`, and
 * keep the original write for protocol lines. Redirects nest: stdout stays redirected until the last is restored.
 */
export function redirectStdout(stdout: NodeJS.WriteStream, stderr: NodeJS.WritableStream): StdoutRedirect {
  const target = stdout as NodeJS.WriteStream & Redirected;
  let installed = target[REDIRECTED];
  if (installed) {
    installed.count++;
  } else {
    installed = { original: stdout.write, hadOwn: Object.hasOwn(stdout, "write"), count: 1 };
    if (consoleBypassesStdout(stdout)) installed.restoreConsole = moveConsole(stderr);
    target[REDIRECTED] = installed;
    stdout.write = ((chunk: unknown, encoding?: unknown, callback?: unknown) =>
      (stderr.write as (...args: unknown[]) => boolean)(chunk, encoding, callback)) as Write;
  }
  const state = installed;
  let restored = false;
  return {
    write: state.original.bind(stdout) as StdoutRedirect["write"],
    restore() {
      if (restored) return;
      restored = true;
      if (--state.count > 0) return;
      delete target[REDIRECTED];
      state.restoreConsole?.();
      if (state.hadOwn) stdout.write = state.original;
      else delete (stdout as { write?: Write }).write;
    },
  };
}
