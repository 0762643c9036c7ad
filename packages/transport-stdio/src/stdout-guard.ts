/** While installed, anything user code writes to stdout (console.log, process.stdout.write) goes to stderr. */
export interface StdoutGuard {
  /** Write to the real stdout: the protocol's own channel. */
  readonly write: (chunk: string, callback?: (error?: Error | null) => void) => boolean;
  restore(): void;
}

type Write = NodeJS.WriteStream["write"];

const GUARDED = Symbol.for("toolsmith.stdoutGuard");

/**
 * Route `stdout.write` (and so every `console` method that prints to stdout) to `stderr`, and
 * keep the original write for protocol lines.
 */
export function guardStdout(stdout: NodeJS.WriteStream, stderr: NodeJS.WritableStream): StdoutGuard {
  const target = stdout as NodeJS.WriteStream & { [GUARDED]?: Write };
  const hadOwn = Object.hasOwn(stdout, "write");
  const original: Write = target[GUARDED] ?? stdout.write;
  const wire = original.bind(stdout) as StdoutGuard["write"];
  if (target[GUARDED] === undefined) {
    const redirected = ((chunk: unknown, encoding?: unknown, callback?: unknown) =>
      (stderr.write as (...args: unknown[]) => boolean)(chunk, encoding, callback)) as Write;
    target[GUARDED] = original;
    stdout.write = redirected;
  }
  let restored = false;
  return {
    write: wire,
    restore() {
      if (restored || target[GUARDED] !== original) return;
      restored = true;
      delete target[GUARDED];
      if (hadOwn) stdout.write = original;
      else delete (stdout as { write?: Write }).write;
    },
  };
}
