/** While installed, anything user code writes to stdout (console.log, process.stdout.write) goes to stderr. */
export interface StdoutGuard {
  /** Write to the real stdout: the protocol's own channel. */
  readonly write: (chunk: string, callback?: (error?: Error | null) => void) => boolean;
  restore(): void;
}

type Write = NodeJS.WriteStream["write"];

interface Installed {
  original: Write;
  hadOwn: boolean;
  count: number;
}

const GUARDED = Symbol.for("toolsmith.stdoutGuard");

type Guarded = NodeJS.WritableStream & { [GUARDED]?: Installed };

/** Write to `stdout` itself, past any guard installed on it: protocol lines when no guard of one's own is wanted. */
export function writeThrough(stdout: NodeJS.WritableStream): StdoutGuard["write"] {
  const target = stdout as Guarded;
  return (chunk, callback) => {
    const write = (target[GUARDED]?.original ?? stdout.write) as StdoutGuard["write"];
    return write.call(stdout, chunk, callback);
  };
}

/**
 * Route `stdout.write` (and so every `console` method that prints to stdout) to `stderr`, and
 * keep the original write for protocol lines. Guards nest: stdout stays guarded until the last is restored.
 */
export function guardStdout(stdout: NodeJS.WriteStream, stderr: NodeJS.WritableStream): StdoutGuard {
  const target = stdout as NodeJS.WriteStream & Guarded;
  let installed = target[GUARDED];
  if (installed) {
    installed.count++;
  } else {
    installed = { original: stdout.write, hadOwn: Object.hasOwn(stdout, "write"), count: 1 };
    target[GUARDED] = installed;
    stdout.write = ((chunk: unknown, encoding?: unknown, callback?: unknown) =>
      (stderr.write as (...args: unknown[]) => boolean)(chunk, encoding, callback)) as Write;
  }
  const state = installed;
  let restored = false;
  return {
    write: state.original.bind(stdout) as StdoutGuard["write"],
    restore() {
      if (restored) return;
      restored = true;
      if (--state.count > 0) return;
      delete target[GUARDED];
      if (state.hadOwn) stdout.write = state.original;
      else delete (stdout as { write?: Write }).write;
    },
  };
}
